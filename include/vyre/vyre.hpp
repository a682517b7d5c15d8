#pragma once
/// \file vyre/vyre.hpp
/// Everything of vyre in one include: the IR, its text form, validation and
/// hash, the backend concepts and provided operations, the catalogue and the
/// enabled backends.

#include <vyre/core/error.hpp>
#include <vyre/core/huge_page_heap.hpp>
#include <vyre/core/version.hpp>
#include <vyre/core/result.hpp>
#include <vyre/ir/builder.hpp>
#include <vyre/ir/hash.hpp>
#include <vyre/ir/program.hpp>
#include <vyre/ir/text.hpp>
#include <vyre/ir/types.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/ops/catalogue.hpp>
#include <vyre/ops/extension.hpp>
#include <vyre/ops/registry.hpp>
#include <vyre/backend/capabilities.hpp>
#include <vyre/backend/concepts.hpp>
#include <vyre/backend/config.hpp>
#include <vyre/backend/provided.hpp>
#include <vyre/backend/cpu_ref.hpp>
#include <vyre/backend/cpu.hpp>
#include <vyre/backend/any_backend.hpp>
#include <vyre/backends.hpp>

#pragma once
// A small strict JSON reader that keeps lines, for the frontend's inputs
// (taint configurations, compile_commands.json): errors name the line.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <weir/llvm/error.hpp>

namespace weir::llvm {

namespace detail {

/// A JSON value that remembers the line it starts on (for error messages).
struct json_value {
    enum kind_t { null_v, bool_v, number_v, string_v, array_v, object_v } kind = null_v;
    std::size_t line = 0;
    bool b = false;
    double number = 0;
    std::string str;
    std::vector<json_value> items;         ///< array elements
    std::vector<std::string> member_keys;  ///< object members in order: keys
    std::vector<json_value> members;       ///< and values

    /// The member called `key`, or nullptr.
    const json_value* get(std::string_view key) const {
        for (std::size_t k = 0; k < member_keys.size(); ++k)
            if (member_keys[k] == key) return &members[k];
        return nullptr;
    }
};

/// A small strict JSON reader (RFC 8259) that tracks lines, with a nesting limit.
class json_reader {
public:
    json_reader(std::string_view text, const std::string& file) : s_(text), file_(file) {}

    json_value parse() {
        if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
        skip_ws();
        json_value v = value(0);
        skip_ws();
        if (pos_ != s_.size()) fail("unexpected text after the JSON value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw input_error(file_, line_, "malformed JSON: " + what); }

    void skip_ws() {
        while (pos_ < s_.size()) {
            char c = s_[pos_];
            if (c == '\n') ++line_;
            else if (c != ' ' && c != '\t' && c != '\r') break;
            ++pos_;
        }
    }
    bool eat(char c) {
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(char c, const char* what) {
        skip_ws();
        if (!eat(c)) fail(std::string("expected ") + what);
    }

    json_value value(int depth) {
        if (depth > 64) fail("nested deeper than 64 levels");
        json_value v;
        v.line = line_;
        if (pos_ >= s_.size()) fail("unexpected end of file");
        const char c = s_[pos_];
        if (c == '{') {
            ++pos_;
            v.kind = json_value::object_v;
            skip_ws();
            if (eat('}')) return v;
            for (;;) {
                skip_ws();
                if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a string key");
                std::string key = string();
                expect(':', "':' after a key");
                skip_ws();
                v.member_keys.push_back(std::move(key));
                v.members.push_back(value(depth + 1));
                skip_ws();
                if (eat(',')) continue;
                if (eat('}')) return v;
                fail("expected ',' or '}' in an object");
            }
        }
        if (c == '[') {
            ++pos_;
            v.kind = json_value::array_v;
            skip_ws();
            if (eat(']')) return v;
            for (;;) {
                skip_ws();
                v.items.push_back(value(depth + 1));
                skip_ws();
                if (eat(',')) continue;
                if (eat(']')) return v;
                fail("expected ',' or ']' in an array");
            }
        }
        if (c == '"') {
            v.kind = json_value::string_v;
            v.str = string();
            return v;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            v.kind = json_value::number_v;
            v.number = number();
            return v;
        }
        for (auto [word, kind, b] : {std::tuple{"true", json_value::bool_v, true}, std::tuple{"false", json_value::bool_v, false},
                                     std::tuple{"null", json_value::null_v, false}}) {
            std::string_view w(word);
            if (s_.substr(pos_, w.size()) == w) {
                pos_ += w.size();
                v.kind = kind;
                v.b = b;
                return v;
            }
        }
        fail(std::string("unexpected character '") + (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f ? std::string("\\x") + "0123456789abcdef"[(c >> 4) & 15] + "0123456789abcdef"[c & 15] : std::string(1, c)) + "'");
    }

    double number() {
        const std::size_t b = pos_;
        eat('-');
        if (!(pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')) fail("malformed number");
        if (s_[pos_] == '0') ++pos_;
        else while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
        if (eat('.')) {
            if (!(pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')) fail("malformed number");
            while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
            ++pos_;
            if (!eat('+')) eat('-');
            if (!(pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')) fail("malformed number");
            while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
        }
        return std::strtod(std::string(s_.substr(b, pos_ - b)).c_str(), nullptr);
    }

    static void put_utf8(std::string& out, std::uint32_t cp) {
        if (cp < 0x80) out += static_cast<char>(cp);
        else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }
    std::uint32_t hex4() {
        if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = s_[pos_++];
            v <<= 4;
            if (h >= '0' && h <= '9') v |= static_cast<std::uint32_t>(h - '0');
            else if (h >= 'a' && h <= 'f') v |= static_cast<std::uint32_t>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') v |= static_cast<std::uint32_t>(h - 'A' + 10);
            else fail("malformed \\u escape");
        }
        return v;
    }
    std::string string() {
        ++pos_;  // the opening quote
        std::string out;
        for (;;) {
            if (pos_ >= s_.size()) fail("unterminated string");
            const char c = s_[pos_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= s_.size()) fail("unterminated string");
            switch (s_[pos_++]) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                std::uint32_t cp = hex4();
                if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
                    pos_ += 2;
                    const std::uint32_t lo = hex4();
                    if (lo < 0xDC00 || lo >= 0xE000) fail("unpaired surrogate in a \\u escape");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xD800 && cp < 0xE000) {
                    fail("unpaired surrogate in a \\u escape");
                }
                put_utf8(out, cp);
                break;
            }
            default: fail("unknown escape in a string");
            }
        }
    }

    std::string_view s_;
    const std::string& file_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
};

} // namespace detail

} // namespace weir::llvm

; ModuleID = '/src/test/llvm/programs/taint/t16_exception_try.cpp'
source_filename = "/src/test/llvm/programs/taint/t16_exception_try.cpp"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

$__clang_call_terminate = comdat any

@_ZTIi = external constant i8*

; Function Attrs: mustprogress noinline uwtable
define dso_local void @_Z5checki(i32 noundef %v) #0 !dbg !10 {
entry:
  %v.addr = alloca i32, align 4
  store i32 %v, i32* %v.addr, align 4
  call void @llvm.dbg.declare(metadata i32* %v.addr, metadata !16, metadata !DIExpression()), !dbg !17
  %0 = load i32, i32* %v.addr, align 4, !dbg !18
  %cmp = icmp slt i32 %0, 0, !dbg !20
  br i1 %cmp, label %if.then, label %if.end, !dbg !21

if.then:                                          ; preds = %entry
  %exception = call i8* @__cxa_allocate_exception(i64 4) #5, !dbg !22
  %1 = bitcast i8* %exception to i32*, !dbg !22
  %2 = load i32, i32* %v.addr, align 4, !dbg !23
  store i32 %2, i32* %1, align 16, !dbg !22
  call void @__cxa_throw(i8* %exception, i8* bitcast (i8** @_ZTIi to i8*), i8* null) #6, !dbg !22
  unreachable, !dbg !22

if.end:                                           ; preds = %entry
  ret void, !dbg !24
}

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.declare(metadata, metadata, metadata) #1

declare i8* @__cxa_allocate_exception(i64)

declare void @__cxa_throw(i8*, i8*, i8*)

; Function Attrs: mustprogress noinline norecurse uwtable
define dso_local noundef i32 @main() #2 personality i8* bitcast (i32 (...)* @__gxx_personality_v0 to i8*) !dbg !25 {
entry:
  %retval = alloca i32, align 4
  %x = alloca i32, align 4
  %c = alloca i32, align 4
  %y = alloca i32, align 4
  %exn.slot = alloca i8*, align 8
  %ehselector.slot = alloca i32, align 4
  store i32 0, i32* %retval, align 4
  call void @llvm.dbg.declare(metadata i32* %x, metadata !28, metadata !DIExpression()), !dbg !29
  %call = call noundef i32 @_Z6sourcev(), !dbg !30
  store i32 %call, i32* %x, align 4, !dbg !29
  call void @llvm.dbg.declare(metadata i32* %c, metadata !31, metadata !DIExpression()), !dbg !32
  store i32 1, i32* %c, align 4, !dbg !32
  call void @llvm.dbg.declare(metadata i32* %y, metadata !33, metadata !DIExpression()), !dbg !34
  store i32 0, i32* %y, align 4, !dbg !34
  %0 = load i32, i32* %c, align 4, !dbg !35
  invoke void @_Z5checki(i32 noundef %0)
          to label %invoke.cont unwind label %lpad, !dbg !37

invoke.cont:                                      ; preds = %entry
  %call2 = invoke noundef i32 @_Z6sourcev()
          to label %invoke.cont1 unwind label %lpad, !dbg !38

invoke.cont1:                                     ; preds = %invoke.cont
  store i32 %call2, i32* %y, align 4, !dbg !39
  %1 = load i32, i32* %y, align 4, !dbg !40
  invoke void @_Z5checki(i32 noundef %1)
          to label %invoke.cont3 unwind label %lpad, !dbg !41

invoke.cont3:                                     ; preds = %invoke.cont1
  br label %try.cont, !dbg !42

lpad:                                             ; preds = %invoke.cont1, %invoke.cont, %entry
  %2 = landingpad { i8*, i32 }
          catch i8* null, !dbg !43
  %3 = extractvalue { i8*, i32 } %2, 0, !dbg !43
  store i8* %3, i8** %exn.slot, align 8, !dbg !43
  %4 = extractvalue { i8*, i32 } %2, 1, !dbg !43
  store i32 %4, i32* %ehselector.slot, align 4, !dbg !43
  br label %catch, !dbg !43

catch:                                            ; preds = %lpad
  %exn = load i8*, i8** %exn.slot, align 8, !dbg !42
  %5 = call i8* @__cxa_begin_catch(i8* %exn) #5, !dbg !42
  %6 = load i32, i32* %x, align 4, !dbg !44
  invoke void @_Z4sinki(i32 noundef %6)
          to label %invoke.cont5 unwind label %lpad4, !dbg !46

invoke.cont5:                                     ; preds = %catch
  %7 = load i32, i32* %y, align 4, !dbg !47
  invoke void @_Z4sinki(i32 noundef %7)
          to label %invoke.cont6 unwind label %lpad4, !dbg !48

invoke.cont6:                                     ; preds = %invoke.cont5
  %8 = load i32, i32* %c, align 4, !dbg !49
  invoke void @_Z4sinki(i32 noundef %8)
          to label %invoke.cont7 unwind label %lpad4, !dbg !50

invoke.cont7:                                     ; preds = %invoke.cont6
  call void @__cxa_end_catch(), !dbg !51
  br label %try.cont, !dbg !51

try.cont:                                         ; preds = %invoke.cont7, %invoke.cont3
  %9 = load i32, i32* %y, align 4, !dbg !52
  %call9 = call noundef i32 @_Z8sanitizei(i32 noundef %9), !dbg !53
  call void @_Z4sinki(i32 noundef %call9), !dbg !54
  ret i32 0, !dbg !55

lpad4:                                            ; preds = %invoke.cont6, %invoke.cont5, %catch
  %10 = landingpad { i8*, i32 }
          cleanup, !dbg !56
  %11 = extractvalue { i8*, i32 } %10, 0, !dbg !56
  store i8* %11, i8** %exn.slot, align 8, !dbg !56
  %12 = extractvalue { i8*, i32 } %10, 1, !dbg !56
  store i32 %12, i32* %ehselector.slot, align 4, !dbg !56
  invoke void @__cxa_end_catch()
          to label %invoke.cont8 unwind label %terminate.lpad, !dbg !51

invoke.cont8:                                     ; preds = %lpad4
  br label %eh.resume, !dbg !51

eh.resume:                                        ; preds = %invoke.cont8
  %exn10 = load i8*, i8** %exn.slot, align 8, !dbg !51
  %sel = load i32, i32* %ehselector.slot, align 4, !dbg !51
  %lpad.val = insertvalue { i8*, i32 } undef, i8* %exn10, 0, !dbg !51
  %lpad.val11 = insertvalue { i8*, i32 } %lpad.val, i32 %sel, 1, !dbg !51
  resume { i8*, i32 } %lpad.val11, !dbg !51

terminate.lpad:                                   ; preds = %lpad4
  %13 = landingpad { i8*, i32 }
          catch i8* null, !dbg !51
  %14 = extractvalue { i8*, i32 } %13, 0, !dbg !51
  call void @__clang_call_terminate(i8* %14) #7, !dbg !51
  unreachable, !dbg !51
}

declare noundef i32 @_Z6sourcev() #3

declare i32 @__gxx_personality_v0(...)

declare i8* @__cxa_begin_catch(i8*)

declare void @_Z4sinki(i32 noundef) #3

declare void @__cxa_end_catch()

; Function Attrs: noinline noreturn nounwind
define linkonce_odr hidden void @__clang_call_terminate(i8* %0) #4 comdat {
  %2 = call i8* @__cxa_begin_catch(i8* %0) #5
  call void @_ZSt9terminatev() #7
  unreachable
}

declare void @_ZSt9terminatev()

declare noundef i32 @_Z8sanitizei(i32 noundef) #3

attributes #0 = { mustprogress noinline uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #2 = { mustprogress noinline norecurse uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { noinline noreturn nounwind }
attributes #5 = { nounwind }
attributes #6 = { noreturn }
attributes #7 = { noreturn nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7, !8}
!llvm.ident = !{!9}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 14.0.6", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "/src/test/llvm/programs/taint/t16_exception_try.cpp", directory: "/src", checksumkind: CSK_MD5, checksum: "eee21d6b77f8cbe8f7fe9fa879ea6fc4")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 7, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 1}
!8 = !{i32 7, !"frame-pointer", i32 2}
!9 = !{!"Debian clang version 14.0.6"}
!10 = distinct !DISubprogram(name: "check", linkageName: "_Z5checki", scope: !11, file: !11, line: 7, type: !12, scopeLine: 7, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !15)
!11 = !DIFile(filename: "test/llvm/programs/taint/t16_exception_try.cpp", directory: "/src", checksumkind: CSK_MD5, checksum: "eee21d6b77f8cbe8f7fe9fa879ea6fc4")
!12 = !DISubroutineType(types: !13)
!13 = !{null, !14}
!14 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!15 = !{}
!16 = !DILocalVariable(name: "v", arg: 1, scope: !10, file: !11, line: 7, type: !14)
!17 = !DILocation(line: 7, column: 16, scope: !10)
!18 = !DILocation(line: 8, column: 7, scope: !19)
!19 = distinct !DILexicalBlock(scope: !10, file: !11, line: 8, column: 7)
!20 = !DILocation(line: 8, column: 9, scope: !19)
!21 = !DILocation(line: 8, column: 7, scope: !10)
!22 = !DILocation(line: 9, column: 5, scope: !19)
!23 = !DILocation(line: 9, column: 11, scope: !19)
!24 = !DILocation(line: 10, column: 1, scope: !10)
!25 = distinct !DISubprogram(name: "main", scope: !11, file: !11, line: 12, type: !26, scopeLine: 12, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !15)
!26 = !DISubroutineType(types: !27)
!27 = !{!14}
!28 = !DILocalVariable(name: "x", scope: !25, file: !11, line: 13, type: !14)
!29 = !DILocation(line: 13, column: 7, scope: !25)
!30 = !DILocation(line: 13, column: 11, scope: !25)
!31 = !DILocalVariable(name: "c", scope: !25, file: !11, line: 14, type: !14)
!32 = !DILocation(line: 14, column: 7, scope: !25)
!33 = !DILocalVariable(name: "y", scope: !25, file: !11, line: 15, type: !14)
!34 = !DILocation(line: 15, column: 7, scope: !25)
!35 = !DILocation(line: 17, column: 11, scope: !36)
!36 = distinct !DILexicalBlock(scope: !25, file: !11, line: 16, column: 7)
!37 = !DILocation(line: 17, column: 5, scope: !36)
!38 = !DILocation(line: 18, column: 9, scope: !36)
!39 = !DILocation(line: 18, column: 7, scope: !36)
!40 = !DILocation(line: 19, column: 11, scope: !36)
!41 = !DILocation(line: 19, column: 5, scope: !36)
!42 = !DILocation(line: 20, column: 3, scope: !36)
!43 = !DILocation(line: 27, column: 1, scope: !36)
!44 = !DILocation(line: 21, column: 10, scope: !45)
!45 = distinct !DILexicalBlock(scope: !25, file: !11, line: 20, column: 17)
!46 = !DILocation(line: 21, column: 5, scope: !45)
!47 = !DILocation(line: 22, column: 10, scope: !45)
!48 = !DILocation(line: 22, column: 5, scope: !45)
!49 = !DILocation(line: 23, column: 10, scope: !45)
!50 = !DILocation(line: 23, column: 5, scope: !45)
!51 = !DILocation(line: 24, column: 3, scope: !45)
!52 = !DILocation(line: 25, column: 17, scope: !25)
!53 = !DILocation(line: 25, column: 8, scope: !25)
!54 = !DILocation(line: 25, column: 3, scope: !25)
!55 = !DILocation(line: 26, column: 3, scope: !25)
!56 = !DILocation(line: 27, column: 1, scope: !45)

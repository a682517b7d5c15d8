; ModuleID = '/src/test/llvm/programs/uninit/u10_mem2reg_phi.c'
source_filename = "/src/test/llvm/programs/uninit/u10_mem2reg_phi.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p27ync nounwind readnone speculatable willreturn
declare void @llvm.dbg.declare(metadata, metadata, metadata) #1

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @main() #0 !dbg !43 {
entry:
  %retval = alloca i32, align 4
  %c = alloca i32, align 4
  %v = alloca i32, align 4
  store i32 0, i32* %retval, align 4
  call void @llvm.dbg.declare(metadata i32* %c, metadata !46, metadata !DIExpression()), !dbg !47
  %call = call i32 @rand() #3, !dbg !48
  %rem = srem i32 %call, 2, !dbg !49
  store i32 %rem, i32* %c, align 4, !dbg !47
  call void @llvm.dbg.declare(metadata i32* %v, metadata !50, metadata !DIExpression()), !dbg !51
  %0 = load i32, i32* %c, align 4, !dbg !52
  %call1 = call i32 @pick(i32 noundef %0), !dbg !53
  store i32 %call1, i32* %v, align 4, !dbg !51
  %1 = load i32, i32* %v, align 4, !dbg !54
  %cmp = icmp sgt i32 %1, 5, !dbg !55
  %conv = zext i1 %cmp to i32, !dbg !55
  ret i32 %conv, !dbg !56
}

; Function Attrs: nounwind
declare i32 @rand() #2

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #2 = { nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7, !8}
!llvm.ident = !{!9}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "Debian clang version 14.0.6", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "/src/test/llvm/programs/uninit/u10_mem2reg_phi.c", directory: "/src", checksumkind: CSK_MD5, checksum: "36138c8a623a72beeb98f3bc0ee7d00a")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 7, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 1}
!8 = !{i32 7, !"frame-pointer", i32 2}
!9 = !{!"Debian clang version 14.0.6"}
!10 = distinct !DISubprogram(name: "pick", scope: !11, file: !11, line: 8, type: !12, scopeLine: 8, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !15)
!11 = !DIFile(filename: "test/llvm/programs/uninit/u10_mem2reg_phi.c", directory: "/src", checksumkind: CSK_MD5, checksum: "36138c8a623a72beeb98f3bc0ee7d00a")
!12 = !DISubroutineType(types: !13)
!13 = !{!14, !14}
!14 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!15 = !{}
!16 = !DILocalVariable(name: "c", arg: 1, scope: !10, file: !11, line: 8, type: !14)
!17 = !DILocation(line: 8, column: 14, scope: !10)
!18 = !DILocalVariable(name: "x", scope: !10, file: !11, line: 9, type: !14)
!19 = !DILocation(line: 9, column: 7, scope: !10)
!20 = !DILocation(line: 10, column: 7, scope: !21)
!21 = distinct !DILexicalBlock(scope: !10, file: !11, line: 10, column: 7)
!22 = !DILocation(line: 10, column: 7, scope: !10)
!23 = !DILocation(line: 11, column: 9, scope: !21)
!24 = !DILocation(line: 11, column: 11, scope: !21)
!25 = !DILocation(line: 11, column: 7, scope: !21)
!26 = !DILocation(line: 11, column: 5, scope: !21)
!27 = !DILocalVariable(name: "y", scope: !10, file: !11, line: 12, type: !14)
!28 = !DILocation(line: 12, column: 7, scope: !10)
!29 = !DILocation(line: 13, column: 7, scope: !30)
!30 = distinct !DILexicalBlock(scope: !10, file: !11, line: 13, column: 7)
!31 = !DILocation(line: 13, column: 7, scope: !10)
!32 = !DILocation(line: 14, column: 7, scope: !30)
!33 = !DILocation(line: 14, column: 5, scope: !30)
!34 = !DILocation(line: 16, column: 7, scope: !30)
!35 = !DILocalVariable(name: "r", scope: !10, file: !11, line: 17, type: !14)
!36 = !DILocation(line: 17, column: 7, scope: !10)
!37 = !DILocation(line: 17, column: 11, scope: !10)
!38 = !DILocation(line: 17, column: 13, scope: !10)
!39 = !DILocation(line: 18, column: 10, scope: !10)
!40 = !DILocation(line: 18, column: 14, scope: !10)
!41 = !DILocation(line: 18, column: 12, scope: !10)
!42 = !DILocation(line: 18, column: 3, scope: !10)
!43 = distinct !DISubprogram(name: "main", scope: !11, file: !11, line: 21, type: !44, scopeLine: 21, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !15)
!44 = !DISubroutineType(types: !45)
!45 = !{!14}
!46 = !DILocalVariable(name: "c", scope: !43, file: !11, line: 22, type: !14)
!47 = !DILocation(line: 22, column: 7, scope: !43)
!48 = !DILocation(line: 22, column: 11, scope: !43)
!49 = !DILocation(line: 22, column: 18, scope: !43)
!50 = !DILocalVariable(name: "v", scope: !43, file: !11, line: 23, type: !14)
!51 = !DILocation(line: 23, column: 7, scope: !43)
!52 = !DILocation(line: 23, column: 16, scope: !43)
!53 = !DILocation(line: 23, column: 11, scope: !43)
!54 = !DILocation(line: 24, column: 10, scope: !43)
!55 = !DILocation(line: 24, column: 12, scope: !43)
!56 = !DILocation(line: 24, column: 3, scope: !43)

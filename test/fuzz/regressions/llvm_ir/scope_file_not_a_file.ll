; ModuleID = '/tmp/llt/uninit.u10_mem2reg_phi.c.ll'
source_filename = "/src/test/llvm/programs/uninit/u10_mem2reg_phi.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @pick(i32 noundef %c) #0 !dbg !10 {
entry:
  call void @llvm.dbg.value(metadata i32 %c, metadata !16, metadata !DIExpression()), !dbg !17
  %tobool = icmp ne i32 %c, 0, !dbg !18
  br i1 %tobool, label %if.then, label %if.end, !dbg !20

if.then:                                          ; preds = %entry
  %mul = mul nsw i32 %c, 10, !dbg !21
  call void @llvm.dbg.value(metadata i32 %mul, metadata !22, metadata !DIExpression()), !dbg !17
  br label %if.end, !dbg !23

if.end:                                           ; preds = %if.then, %entry
  %x.0 = phi i32 [ %mul, %if.then ], [ undef, %entry ]
  call void @llvm.dbg.value(metadata i32 %x.0, metadata !22, metadata !DIExpression()), !dbg !17
  %tobool1 = icmp ne i32 %c, 0, !dbg !24
  br i1 %tobool1, label %if.then2, label %if.else, !dbg !26

if.then2:                                         ; preds = %if.end
  call void @llvm.dbg.value(metadata i32 1, metadata !27, metadata !DIExpression()), !dbg !17
  br label %if.end3, !dbg !28

if.else:                                          ; preds = %if.end
  call void @llvm.dbg.value(metadata i32 2, metadata !27, metadata !DIExpression()), !dbg !17
  br label %if.end3

if.end3:                                          ; preds = %if.else, %if.then2
  %y.0 = phi i32 [ 1, %if.then2 ], [ 2, %if.else ], !dbg !29
  call void @llvm.dbg.value(metadata i32 %y.0, metadata !27, metadata !DIExpression()), !dbg !17
  %add = add nsw i32 %y.0, 1, !dbg !30
  call void @llvm.dbg.value(metadata i32 %add, metadata !31, metadata !DIExpression()), !dbg !17
  %add4 = add nsw i32 %add, %x.0, !dbg !32
  ret i32 %add4, !dbg !33
}

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.declare(metadata, metadata, metadata) #1

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @main() #0 !dbg !34 {
entry:
  %call = call i32 @rand() #3, !dbg !37
  %rem = srem i32 %call, 2, !dbg !38
  call void @llvm.dbg.value(metadata i32 %rem, metadata !39, metadata !DIExpression()), !dbg !40
  %call1 = call i32 @pick(i32 noundef %rem), !dbg !41
  call void @llvm.dbg.value(metadata i32 %call1, metadata !42, metadata !DIExpression()), !dbg !40
  %cmp = icmp sgt i32 %call1, 5, !dbg !43
  %conv = zext i1 %cmp to i32, !dbg !43
  ret i32 %conv, !dbg !44
}

; Function Attrs: nounwind
declare i32 @rand() #2

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.value(metadata, metadata, metadata) #1

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #2 = { nounwind "efo-mrapinter"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
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
!17 = !DILocation(line: 0, scope: !10)
!18 = !DILocation(line: 10, column: 7, scope: !19)
!19 = distinct !DILexicalBlock(scope: !10, file: !11, line: 10, column: 7)
!20 = !DILocation(line: 10, column: 7, scope: !10)
!21 = !DILocation(line: 11, column: 11, scope: !19)
!22 = !DILocalVariable(name: "x", scope: !10, file: !11, line: 9, type: !14)
!23 = !DILocation(line: 11, column: 5, scope: !19)
!24 = !DILocation(line: 13, column: 7, scope: !25)
!25 = distinct !DILexicalBlock(scope: !10, file: !10, line: 13, column: 7)
!26 = !DILocation(line: 13, column: 7, scope: !10)
!27 = !DILocalVariable(name: "y", scope: !10, file: !11, line: 12, type: !14)
!28 = !DILocation(line: 14, column: 5, scope: !25)
!29 = !DILocation(line: 0, scope: !25)
!30 = !DILocation(line: 17, column: 13, scope: !10)
!31 = !DILocalVariable(name: "r", scope: !10, file: !11, line: 17, type: !14)
!32 = !DILocation(line: 18, column: 12, scope: !10)
!33 = !DILocation(line: 18, column: 3, scope: !10)
!34 = distinct !DISubprogram(name: "main", scope: !11, file: !11, line: 21, type: !35, scopeLine: 21, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !15)
!35 = !DISubroutineType(types: !36)
!36 = !{!14}
!37 = !DILocation(line: 22, column: 11, scope: !34)
!38 = !DILocation(line: 22, column: 18, scope: !34)
!39 = !DILocalVariable(name: "c", scope: !34, file: !11, line: 22, type: !14)
!40 = !DILocation(line: 0, scope: !34)
!41 = !DILocation(line: 23, column: 11, scope: !34)
!42 = !DILocalVariable(name: "vpersonality", scope: !34, file: !11, line: 23, type: !14)
!43 = !DILocation(line: 24, column: 12, scope: !34)
!44 = !DILocation(line: 24, column: 3, scope: !34)

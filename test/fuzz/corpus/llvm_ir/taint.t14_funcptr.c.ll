; ModuleID = '/src/test/llvm/programs/taint/t14_funcptr.c'
source_filename = "/src/test/llvm/programs/taint/t14_funcptr.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @main() #0 !dbg !10 {
entry:
  %retval = alloca i32, align 4
  %f = alloca i32 (i32)*, align 8
  %g = alloca i32 (i32)*, align 8
  %h = alloca void (i32)*, align 8
  %k = alloca void (i32)*, align 8
  store i32 0, i32* %retval, align 4
  call void @llvm.dbg.declare(metadata i32 (i32)** %f, metadata !16, metadata !DIExpression()), !dbg !20
  store i32 (i32)* @from_source, i32 (i32)** %f, align 8, !dbg !20
  call void @llvm.dbg.declare(metadata i32 (i32)** %g, metadata !21, metadata !DIExpression()), !dbg !22
  store i32 (i32)* @constant, i32 (i32)** %g, align 8, !dbg !22
  %0 = load i32 (i32)*, i32 (i32)** %f, align 8, !dbg !23
  %call = call i32 %0(i32 noundef 1), !dbg !23
  call void @sink(i32 noundef %call), !dbg !24
  %1 = load i32 (i32)*, i32 (i32)** %g, align 8, !dbg !25
  %call1 = call i32 %1(i32 noundef 2), !dbg !25
  call void @sink(i32 noundef %call1), !dbg !26
  call void @llvm.dbg.declare(metadata void (i32)** %h, metadata !27, metadata !DIExpression()), !dbg !31
  store void (i32)* @do_sink, void (i32)** %h, align 8, !dbg !31
  call void @llvm.dbg.declare(metadata void (i32)** %k, metadata !32, metadata !DIExpression()), !dbg !33
  store void (i32)* @do_nothing, void (i32)** %k, align 8, !dbg !33
  %2 = load void (i32)*, void (i32)** %k, align 8, !dbg !34
  %call2 = call i32 @source(), !dbg !35
  call void %2(i32 noundef %call2), !dbg !34
  %3 = load void (i32)*, void (i32)** %h, align 8, !dbg !36
  call void %3(i32 noundef 3), !dbg !36
  ret i32 0, !dbg !37
}

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.declare(metadata, metadata, metadata) #1

; Function Attrs: noinline nounwind uwtable
define internal i32 @from_source(i32 noundef %v) #0 !dbg !38 {
entry:
  %v.addr = alloca i32, align 4
  store i32 %v, i32* %v.addr, align 4
  call void @llvm.dbg.declare(metadata i32* %v.addr, metadata !39, metadata !DIExpression()), !dbg !40
  %call = call i32 @source(), !dbg !41
  %0 = load i32, i32* %v.addr, align 4, !dbg !42
  %add = add nsw i32 %call, %0, !dbg !43
  ret i32 %add, !dbg !44
}

; Function Attrs: noinline nounwind uwtable
define internal i32 @constant(i32 noundef %v) #0 !dbg !45 {
entry:
  %v.addr = alloca i32, align 4
  store i32 %v, i32* %v.addr, align 4
  call void @llvm.dbg.declare(metadata i32* %v.addr, metadata !46, metadata !DIExpression()), !dbg !47
  %0 = load i32, i32* %v.addr, align 4, !dbg !48
  %mul = mul nsw i32 %0, 0, !dbg !49
  %add = add nsw i32 %mul, 1, !dbg !50
  ret i32 %add, !dbg !51
}

declare void @sink(i32 noundef) #2

; Function Attrs: noinline nounwind uwtable
define internal void @do_sink(i32 noundef %v) #0 !dbg !52 {
entry:
  %v.addr = alloca i32, align 4
  store i32 %v, i32* %v.addr, align 4
  call void @llvm.dbg.declare(metadata i32* %v.addr, metadata !53, metadata !DIExpression()), !dbg !54
  %0 = load i32, i32* %v.addr, align 4, !dbg !55
  call void @sink(i32 noundef %0), !dbg !56
  ret void, !dbg !57
}

; Function Attrs: noinline nounwind uwtable
define internal void @do_nothing(i32 noundef %v) #0 !dbg !58 {
entry:
  %v.addr = alloca i32, align 4
  store i32 %v, i32* %v.addr, align 4
  call void @llvm.dbg.declare(metadata i32* %v.addr, metadata !59, metadata !DIExpression()), !dbg !60
  %0 = load i32, i32* %v.addr, align 4, !dbg !61
  ret void, !dbg !62
}

declare i32 @source() #2

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #2 = { "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7, !8}
!llvm.ident = !{!9}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "Debian clang version 14.0.6", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "/src/test/llvm/programs/taint/t14_funcptr.c", directory: "/src", checksumkind: CSK_MD5, checksum: "c2bdad8fb6cc0f332bd395ca3b7f398e")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 7, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 1}
!8 = !{i32 7, !"frame-pointer", i32 2}
!9 = !{!"Debian clang version 14.0.6"}
!10 = distinct !DISubprogram(name: "main", scope: !11, file: !11, line: 14, type: !12, scopeLine: 14, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !15)
!11 = !DIFile(filename: "test/llvm/programs/taint/t14_funcptr.c", directory: "/src", checksumkind: CSK_MD5, checksum: "c2bdad8fb6cc0f332bd395ca3b7f398e")
!12 = !DISubroutineType(types: !13)
!13 = !{!14}
!14 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!15 = !{}
!16 = !DILocalVariable(name: "f", scope: !10, file: !11, line: 15, type: !17)
!17 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !18, size: 64)
!18 = !DISubroutineType(types: !19)
!19 = !{!14, !14}
!20 = !DILocation(line: 15, column: 9, scope: !10)
!21 = !DILocalVariable(name: "g", scope: !10, file: !11, line: 16, type: !17)
!22 = !DILocation(line: 16, column: 9, scope: !10)
!23 = !DILocation(line: 17, column: 8, scope: !10)
!24 = !DILocation(line: 17, column: 3, scope: !10)
!25 = !DILocation(line: 18, column: 8, scope: !10)
!26 = !DILocation(line: 18, column: 3, scope: !10)
!27 = !DILocalVariable(name: "h", scope: !10, file: !11, line: 19, type: !28)
!28 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !29, size: 64)
!29 = !DISubroutineType(types: !30)
!30 = !{null, !14}
!31 = !DILocation(line: 19, column: 10, scope: !10)
!32 = !DILocalVariable(name: "k", scope: !10, file: !11, line: 20, type: !28)
!33 = !DILocation(line: 20, column: 10, scope: !10)
!34 = !DILocation(line: 21, column: 3, scope: !10)
!35 = !DILocation(line: 21, column: 5, scope: !10)
!36 = !DILocation(line: 22, column: 3, scope: !10)
!37 = !DILocation(line: 23, column: 3, scope: !10)
!38 = distinct !DISubprogram(name: "from_source", scope: !11, file: !11, line: 7, type: !18, scopeLine: 7, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition, unit: !0, retainedNodes: !15)
!39 = !DILocalVariable(name: "v", arg: 1, scope: !38, file: !11, line: 7, type: !14)
!40 = !DILocation(line: 7, column: 28, scope: !38)
!41 = !DILocation(line: 7, column: 40, scope: !38)
!42 = !DILocation(line: 7, column: 51, scope: !38)
!43 = !DILocation(line: 7, column: 49, scope: !38)
!44 = !DILocation(line: 7, column: 33, scope: !38)
!45 = distinct !DISubprogram(name: "constant", scope: !11, file: !11, line: 8, type: !18, scopeLine: 8, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition, unit: !0, retainedNodes: !15)
!46 = !DILocalVariable(name: "v", arg: 1, scope: !45, file: !11, line: 8, type: !14)
!47 = !DILocation(line: 8, column: 25, scope: !45)
!48 = !DILocation(line: 8, column: 37, scope: !45)
!49 = !DILocation(line: 8, column: 39, scope: !45)
!50 = !DILocation(line: 8, column: 43, scope: !45)
!51 = !DILocation(line: 8, column: 30, scope: !45)
!52 = distinct !DISubprogram(name: "do_sink", scope: !11, file: !11, line: 9, type: !29, scopeLine: 9, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition, unit: !0, retainedNodes: !15)
!53 = !DILocalVariable(name: "v", arg: 1, scope: !52, file: !11, line: 9, type: !14)
!54 = !DILocation(line: 9, column: 25, scope: !52)
!55 = !DILocation(line: 10, column: 8, scope: !52)
!56 = !DILocation(line: 10, column: 3, scope: !52)
!57 = !DILocation(line: 11, column: 1, scope: !52)
!58 = distinct !DISubprogram(name: "do_nothing", scope: !11, file: !11, line: 12, type: !29, scopeLine: 12, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition, unit: !0, retainedNodes: !15)
!59 = !DILocalVariable(name: "v", arg: 1, scope: !58, file: !11, line: 12, type: !14)
!60 = !DILocation(line: 12, column: 28, scope: !58)
!61 = !DILocation(line: 12, column: 39, scope: !58)
!62 = !DILocation(line: 12, column: 42, scope: !58)

// The tile dialect: Triton's tile operations over builtin ranked tensors.
// Tiles are `tensor<NxMxT>`, scalars builtin scalars, pointers `!tile.ptr<T>`.
// Elementwise math stays in arith/math on tensors; control flow is scf; functions func.
// IRDL ops carry no traits, so nothing here has a region or is a terminator: reduce and
// scan name a func.func combine function by symbol. Shapes are checked in C
// (dialects/verify.c), since IRDL cannot relate operand and result shapes.
irdl.dialect @tile {
  // A pointer to an element of type `pointee` (which may itself be a !tile.ptr).
  irdl.type @ptr {
    %t = irdl.any
    irdl.parameters(pointee: %t)
  }

  // --- grid -------------------------------------------------------------------------
  irdl.operation @program_id {       // {axis : i32} -> i32
    %i32 = irdl.is i32
    %a = irdl.any
    irdl.attributes {"axis" = %a}
    irdl.results(result: %i32)
  }
  irdl.operation @num_programs {     // {axis : i32} -> i32
    %i32 = irdl.is i32
    %a = irdl.any
    irdl.attributes {"axis" = %a}
    irdl.results(result: %i32)
  }

  // --- creation and shape ---------------------------------------------------------
  irdl.operation @range {            // {start, end : i32} -> tensor<(end-start)xi32>
    %t = irdl.any
    %s = irdl.any
    %e = irdl.any
    irdl.attributes {"start" = %s, "end" = %e}
    irdl.results(result: %t)
  }
  irdl.operation @splat {            // scalar -> tile of that scalar
    %s = irdl.any
    %t = irdl.any
    irdl.operands(value: %s)
    irdl.results(result: %t)
  }
  irdl.operation @broadcast {        // tile with 1-sized dims -> larger shape
    %s = irdl.any
    %t = irdl.any
    irdl.operands(value: %s)
    irdl.results(result: %t)
  }
  irdl.operation @expand_dims {      // {axis} inserts a 1-sized dim
    %s = irdl.any
    %t = irdl.any
    %a = irdl.any
    irdl.attributes {"axis" = %a}
    irdl.operands(value: %s)
    irdl.results(result: %t)
  }
  irdl.operation @reshape {          // same element count, row-major order
    %s = irdl.any
    %t = irdl.any
    irdl.operands(value: %s)
    irdl.results(result: %t)
  }
  irdl.operation @trans {            // {order : array<i32>} permutes dims
    %s = irdl.any
    %t = irdl.any
    %a = irdl.any
    irdl.attributes {"order" = %a}
    irdl.operands(value: %s)
    irdl.results(result: %t)
  }

  // --- pointers and casts -----------------------------------------------------------
  irdl.operation @addptr {           // ptr (+tile) + element offset (tile) -> ptr (tile)
    %p = irdl.any
    %o = irdl.any
    irdl.operands(ptr: %p, offset: %o)
    irdl.results(result: %p)
  }
  irdl.operation @ptr_to_int {
    %p = irdl.any
    %i = irdl.any
    irdl.operands(ptr: %p)
    irdl.results(result: %i)
  }
  irdl.operation @int_to_ptr {
    %i = irdl.any
    %p = irdl.any
    irdl.operands(value: %i)
    irdl.results(result: %p)
  }
  irdl.operation @bitcast {          // same bit width, incl. pointer <-> pointer
    %s = irdl.any
    %t = irdl.any
    irdl.operands(value: %s)
    irdl.results(result: %t)
  }

  // --- memory ---------------------------------------------------------------------------
  irdl.operation @load {             // ptr, optional mask (i1), optional other
    %p = irdl.any
    %m = irdl.any
    %o = irdl.any
    %r = irdl.any
    irdl.operands(ptr: %p, mask: optional %m, other: optional %o)
    irdl.results(result: %r)
  }
  irdl.operation @store {            // ptr, value, optional mask
    %p = irdl.any
    %v = irdl.any
    %m = irdl.any
    irdl.operands(ptr: %p, value: %v, mask: optional %m)
    irdl.results()
  }
  irdl.operation @atomic_rmw {       // {kind = "add"|"max"|...}; returns the old values
    %p = irdl.any
    %v = irdl.any
    %m = irdl.any
    %r = irdl.any
    %k = irdl.any
    irdl.attributes {"kind" = %k}
    irdl.operands(ptr: %p, value: %v, mask: optional %m)
    irdl.results(result: %r)
  }
  irdl.operation @atomic_cas {       // ptr, cmp, val -> old
    %p = irdl.any
    %c = irdl.any
    %v = irdl.any
    irdl.operands(ptr: %p, cmp: %c, value: %v)
    irdl.results(result: %c)
  }

  // --- compute ----------------------------------------------------------------------------
  // a[M,K] x b[K,N] + acc[M,N]; an optional {input_precision = "ieee"|"tf32"|"tf32x3"|"bf16x3"|
  // "bf16x6"} (absent: ieee; IRDL attributes cannot be optional, dialects/verify.c checks it)
  irdl.operation @dot {
    %a = irdl.any
    %b = irdl.any
    %c = irdl.any
    irdl.operands(a: %a, b: %b, acc: %c)
    irdl.results(result: %c)
  }
  // Reductions and scans take 1 to 8 tiles (one IRDL variable each: IRDL would force all
  // members of one variadic group to the same type), with operand/resultSegmentSizes.
  irdl.operation @reduce {
    %v0 = irdl.any
    %v1 = irdl.any
    %v2 = irdl.any
    %v3 = irdl.any
    %v4 = irdl.any
    %v5 = irdl.any
    %v6 = irdl.any
    %v7 = irdl.any
    %r0 = irdl.any
    %r1 = irdl.any
    %r2 = irdl.any
    %r3 = irdl.any
    %r4 = irdl.any
    %r5 = irdl.any
    %r6 = irdl.any
    %r7 = irdl.any
    %a = irdl.any
    %f = irdl.any
    irdl.attributes {"axis" = %a, "combine" = %f}
    irdl.operands(values0: %v0, values1: optional %v1, values2: optional %v2, values3: optional %v3, values4: optional %v4, values5: optional %v5, values6: optional %v6, values7: optional %v7)
    irdl.results(results0: %r0, results1: optional %r1, results2: optional %r2, results3: optional %r3, results4: optional %r4, results5: optional %r5, results6: optional %r6, results7: optional %r7)
  }
  irdl.operation @scan {
    %v0 = irdl.any
    %v1 = irdl.any
    %v2 = irdl.any
    %v3 = irdl.any
    %v4 = irdl.any
    %v5 = irdl.any
    %v6 = irdl.any
    %v7 = irdl.any
    %r0 = irdl.any
    %r1 = irdl.any
    %r2 = irdl.any
    %r3 = irdl.any
    %r4 = irdl.any
    %r5 = irdl.any
    %r6 = irdl.any
    %r7 = irdl.any
    %a = irdl.any
    %f = irdl.any
    %rv = irdl.any
    irdl.attributes {"axis" = %a, "combine" = %f, "reverse" = %rv}
    irdl.operands(values0: %v0, values1: optional %v1, values2: optional %v2, values3: optional %v3, values4: optional %v4, values5: optional %v5, values6: optional %v6, values7: optional %v7)
    irdl.results(results0: %r0, results1: optional %r1, results2: optional %r2, results3: optional %r3, results4: optional %r4, results5: optional %r5, results6: optional %r6, results7: optional %r7)
  }
  irdl.operation @gather {           // {axis}: result has the index's shape
    %s = irdl.any
    %i = irdl.any
    %r = irdl.any
    %a = irdl.any
    irdl.attributes {"axis" = %a}
    irdl.operands(src: %s, index: %i)
    irdl.results(result: %r)
  }

  irdl.operation @sort {             // {descending : bool, unsigned : bool} along the last dim
    %s = irdl.any
    %d = irdl.any
    %u = irdl.any
    irdl.attributes {"descending" = %d, "unsigned" = %u}
    irdl.operands(value: %s)
    irdl.results(result: %s)
  }

  // --- analysis hints (tl.multiple_of / max_contiguous / max_constancy) ------------
  irdl.operation @hint {             // {kind = "multiple_of"|..., values : array<i64>}
    %s = irdl.any
    %k = irdl.any
    %v = irdl.any
    irdl.attributes {"kind" = %k, "values" = %v}
    irdl.operands(value: %s)
    irdl.results(result: %s)
  }

  // --- debug --------------------------------------------------------------------------
  irdl.operation @print {            // {prefix, hex, unsigned (bit i: operand i)}; 0 to 8 values of any types
    %v0 = irdl.any
    %v1 = irdl.any
    %v2 = irdl.any
    %v3 = irdl.any
    %v4 = irdl.any
    %v5 = irdl.any
    %v6 = irdl.any
    %v7 = irdl.any
    %p = irdl.any
    %h = irdl.any
    %u = irdl.any
    irdl.attributes {"prefix" = %p, "hex" = %h, "unsigned" = %u}
    irdl.operands(args0: optional %v0, args1: optional %v1, args2: optional %v2, args3: optional %v3, args4: optional %v4, args5: optional %v5, args6: optional %v6, args7: optional %v7)
    irdl.results()
  }
  irdl.operation @assert {           // {message}; cond tile or scalar
    %s = irdl.any
    %m = irdl.any
    irdl.attributes {"message" = %m}
    irdl.operands(cond: %s)
    irdl.results()
  }
}

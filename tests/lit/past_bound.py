# A reduction over a tile wider than its row (BLOCK = next_power_of_2(N)): the chunks wholly
# past the bound of `cols < n` are not walked one by one when the operand there is one value
# in every chunk (conversion/reduce.c past_bound): the masked loop stops at the chunk holding
# the bound, one chunk past it is evaluated and folded in once — for the sum only when it is
# zero in every lane (else the old loop to the end of the tile runs), for the max always.
# RUN: %tilec compile %s -k k -s "*fp32:16, *fp32, i32, 4096" --target x86-64-v4 --emit vector | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def k(x, y, n, B: tl.constexpr):
    c = tl.arange(0, B)
    tl.store(y, tl.sum(tl.load(x + c, mask=c < n, other=0.), axis=0))
    tl.store(y + 1, tl.max(tl.load(x + c, mask=c < n, other=float('-inf')), axis=0))

# The sum: unmasked groups of 4 chunks, then masked chunks up to the bound rounded up.
# CHECK: scf.for {{.*}} iter_args({{.*}}, {{.*}}, {{.*}}, {{.*}})
# CHECK: %[[UP:.*]] = arith.andi %{{.*}}, %c-16 : index
# CHECK-NEXT: %[[LIVE:.*]] = arith.maxsi %[[UP]], %{{.*}} : index
# CHECK-NEXT: %[[PART:.*]] = scf.for %{{.*}} = %{{.*}} to %[[LIVE]] step %c16
# CHECK: vector.maskedload
# CHECK: %[[ANY:.*]] = arith.cmpi ult, %[[LIVE]], %c4096 : index
# CHECK-NEXT: scf.if %[[ANY]]
# CHECK: %[[V:.*]] = vector.maskedload %{{.*}}[%[[LIVE]]]
# CHECK-NEXT: %[[ONCE:.*]] = arith.addf %[[PART]], %[[V]]
# CHECK-NEXT: %[[Z:.*]] = arith.cmpf oeq, %[[V]], %{{.*}} : vector<16xf32>
# CHECK-NEXT: %[[ALLZ:.*]] = vector.reduction <and>, %[[Z]]
# CHECK-NEXT: scf.if %[[ALLZ]]
# CHECK-NEXT: scf.yield %[[ONCE]]
# CHECK-NEXT: } else {
# CHECK-NEXT: scf.for %{{.*}} = %[[LIVE]] to %c4096 step %c16
# The max (same bound, so the same test): folded in once, without testing the value
# (max(max(a, v), v) == max(a, v)), no loop to the end.
# CHECK: scf.if %[[ANY]]
# CHECK: vector.maskedload
# CHECK-NEXT: arith.cmpf ogt
# CHECK-NEXT: arith.select
# CHECK-NEXT: scf.yield
# CHECK-NEXT: } else {
# CHECK-NOT: to %c4096
# CHECK: vector.extract

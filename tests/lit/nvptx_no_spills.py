# The tl.dot bench kernels at their bench configs (bench/gpu/configs.py, sm_90 and sm_90a) keep every
# value in registers: ptxas reports no stack frame and no spills (issue 31's "no local
# memory"). Three things keep them there: attention's row vectors in the quads' registers
# (backend/nvptx_frags.c), the code after a loop carrying MMA fragments reading the thread's
# index anew (tc_nvptx_fresh_thread_id: its addresses are computed there, not kept through
# the loop from the ones before it), and the K-loop pipeline's first-trip issue as a loop
# (its stages' destinations are not hoisted out of the K loop one by one).
# REQUIRES: ptxas
# RUN: %tilec compile %S/../../bench/kernels/attention.py -k attn_fwd_kernel -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 128, 64, False" --target nvptx --arch sm_90 --emit ptx > %t.attn.ptx
# RUN: %ptxas -v -arch=sm_90 %t.attn.ptx -o %t.attn.cubin 2>&1 | FileCheck %s
# RUN: %tilec compile %S/../../bench/kernels/matmul.py -k matmul_kernel -s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 128, 32, 8" --target nvptx --arch sm_90 --emit ptx > %t.mm16.ptx
# RUN: %ptxas -v -arch=sm_90 %t.mm16.ptx -o %t.mm16.cubin 2>&1 | FileCheck %s
# RUN: %tilec compile %S/../../bench/kernels/matmul.py -k matmul_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 128, 32, 8" --target nvptx --arch sm_90 --emit ptx > %t.mm32.ptx
# RUN: %ptxas -v -arch=sm_90 %t.mm32.ptx -o %t.mm32.cubin 2>&1 | FileCheck %s
# RUN: %tilec compile %S/../../bench/kernels/matmul_i8.py -k mm8 -s "*i8:16, *i8:16, *i32:16, i32:16, i32:16, i32:16, 128, 128, 64" --target nvptx --arch sm_90 --emit ptx > %t.mm8.ptx
# RUN: %ptxas -v -arch=sm_90 %t.mm8.ptx -o %t.mm8.cubin 2>&1 | FileCheck %s
# The same at sm_90a, where the bench runs them (wgmma for the fp16 matmul and attention):
# RUN: %tilec compile %S/../../bench/kernels/attention.py -k attn_fwd_kernel -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 128, 64, False" --target nvptx --arch sm_90a --emit ptx > %t.attn90a.ptx
# RUN: %ptxas -v -arch=sm_90a %t.attn90a.ptx -o %t.attn90a.cubin 2>&1 | FileCheck %s
# RUN: %tilec compile %S/../../bench/kernels/matmul.py -k matmul_kernel -s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 128, 32, 8" --target nvptx --arch sm_90a --emit ptx > %t.mm16a.ptx
# RUN: %ptxas -v -arch=sm_90a %t.mm16a.ptx -o %t.mm16a.cubin 2>&1 | FileCheck %s
# RUN: %tilec compile %S/../../bench/kernels/matmul.py -k matmul_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 128, 32, 8" --target nvptx --arch sm_90a --emit ptx > %t.mm32a.ptx
# RUN: %ptxas -v -arch=sm_90a %t.mm32a.ptx -o %t.mm32a.cubin 2>&1 | FileCheck %s
# RUN: %tilec compile %S/../../bench/kernels/matmul_i8.py -k mm8 -s "*i8:16, *i8:16, *i32:16, i32:16, i32:16, i32:16, 128, 128, 64" --target nvptx --arch sm_90a --emit ptx > %t.mm8a.ptx
# RUN: %ptxas -v -arch=sm_90a %t.mm8a.ptx -o %t.mm8a.cubin 2>&1 | FileCheck %s

# CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
# CHECK: Used {{[0-9]+}} registers

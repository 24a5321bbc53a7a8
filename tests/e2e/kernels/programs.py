# Grid queries: each program handles two blocks, pid and pid + num_programs, so the result
# depends on tl.num_programs; tl.cdiv on a runtime scalar and a constexpr.
import triton
import triton.language as tl


@triton.jit
def programs_kernel(pid_ptr, info_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    nprog = tl.num_programs(axis=0)
    nblocks = tl.cdiv(n_elements, BLOCK_SIZE)
    first = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    second = (pid + nprog) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    info = nprog * 100000 + nblocks
    tl.store(pid_ptr + first, first * 0 + pid, mask=first < n_elements)
    tl.store(info_ptr + first, first * 0 + info, mask=first < n_elements)
    tl.store(pid_ptr + second, second * 0 + pid, mask=second < n_elements)
    tl.store(info_ptr + second, second * 0 + info, mask=second < n_elements)

/* frontend/signature.h — specialization of a kernel for Triton's AOT signature format
 * ("*fp32:16, *fp32, i32, 1024") and NAME=VALUE defines. In: the kernel's parameters and
 * the spec. Out: per-parameter kind/dtype/hints and the constexpr values. */
#ifndef TILEC_FRONTEND_SIGNATURE_H
#define TILEC_FRONTEND_SIGNATURE_H

#include "frontend/cg.h"

/* Fills info (every parameter) and vals[i] for constexpr parameters. */
tilec_status *tc_specialize(const tc_module *mod, const tc_func *fn, const tilec_kernel_spec *spec,
                            tc_kernel_info *info, tc_val *vals);
/* Parses a constexpr value written as text (int, float, True/False/None, quoted or bare
 * string). Strings point into `text` (not copied). */
tc_val tc_parse_constexpr_text(const char *text, size_t len);
bool tc_param_is_constexpr_annotation(const tc_expr *annotation);

#endif

/* runtime/bf16.c — the float → bfloat16 conversions LLVM calls (__truncsfbf2, __truncdfbf2)
 * on CPUs without a bf16 conversion instruction (no AVX512-BF16 / AVX-NE-CONVERT: AVX2
 * machines, --target x86-64-v3/v4, AArch64 without BF16). Neither libgcc of Debian 12 nor
 * the link of kernel libraries provides them, so a kernel storing bf16 would not load.
 * Round to nearest even, NaN stays NaN (quiet), subnormals kept. The bf16 result travels
 * in the low 16 bits of the floating-point return register (x86-64 and AArch64 ABIs for
 * __bf16), so it is returned as the float whose bit pattern holds it: no arithmetic
 * touches that register on the way. In: a float or double. Out: its bf16 bits. */
#include "runtime/debug.h"

#include <stdint.h>
#include <string.h>

static uint16_t bf16_of_bits32(uint32_t u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* NaN: quiet it */
  uint32_t round = 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)((u + round) >> 16);
}

static float in_return_register(uint16_t h) {
  uint32_t bits = h;
  float r;
  memcpy(&r, &bits, sizeof r);
  return r;
}

TILEC_RT_EXPORT float __truncsfbf2(float x);
TILEC_RT_EXPORT float __truncdfbf2(double x);

float __truncsfbf2(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return in_return_register(bf16_of_bits32(u));
}

/* Directly from the double, one rounding: the kept 8 bits of mantissa plus sticky bits. */
float __truncdfbf2(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  uint16_t sign = (uint16_t)(u >> 48) & 0x8000u;
  uint64_t mag = u & 0x7fffffffffffffffull;
  if (mag > 0x7ff0000000000000ull) return in_return_register(sign | 0x7fc0u);
  int exp = (int)(mag >> 52) - 1023;
  if (exp > 127) return in_return_register(sign | 0x7f80u); /* overflows to inf */
  /* the value as an integer multiple of 2^-149 (float's tiniest subnormal) is too wide;
   * round the 53-bit significand to bf16's precision at this exponent instead */
  uint64_t sig = (mag & 0x000fffffffffffffull) | (mag >> 52 ? 0x0010000000000000ull : 0);
  int e = exp < -126 ? -126 : exp; /* bf16 subnormals share the smallest exponent */
  int drop = 52 - 7 + (e - exp);   /* bits below bf16's last mantissa bit */
  if (mag == 0 || drop > 60) return in_return_register(sign);
  uint64_t kept = sig >> drop, rest = sig & ((1ull << drop) - 1), half = 1ull << (drop - 1);
  if (rest > half || (rest == half && (kept & 1))) kept++;
  /* kept is the significand at exponent e (implicit bit at 2^7 for normals); carry may
   * make it 2^8: the next binade (or from subnormal to normal), handled by the add */
  uint32_t biased = (uint32_t)(e + 127);
  uint32_t bits = kept >= 0x80u ? ((biased - 1) << 7) + (uint32_t)kept : (uint32_t)kept;
  if (exp < -126 && kept < 0x80u) bits = (uint32_t)kept; /* stays subnormal */
  if (bits >= 0x7f80u) bits = 0x7f80u;
  return in_return_register((uint16_t)(sign | bits));
}

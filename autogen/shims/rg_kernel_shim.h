/* rawgpu autogen shim: the few kernel definitions that AMD's register, packet and struct
 * headers need to compile standalone (for clang's AST dump and the layout probes). */
#ifndef RG_KERNEL_SHIM_H
#define RG_KERNEL_SHIM_H
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint64_t __le64;
#ifndef __cplusplus
typedef _Bool bool;
#endif
#define __packed __attribute__((packed))
#define __aligned(x) __attribute__((aligned(x)))
#define DECLARE_FLEX_ARRAY(TYPE, NAME) \
  struct {                             \
    struct {                           \
    } __empty_##NAME;                  \
    TYPE NAME[];                       \
  }
#define BIT(n) (1u << (n))
#endif

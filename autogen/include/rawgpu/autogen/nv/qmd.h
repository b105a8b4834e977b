// NVIDIA Queue Meta Data (QMD) layouts: V03_00 (Ampere, Ada, and the V03 format Hopper also
// accepts) and V05_00 (Blackwell).
//
// No Debian package ships these headers. This file is data WRITTEN BY HAND from NVIDIA's public
// documentation: open-gpu-doc (github.com/NVIDIA/open-gpu-doc) classes/compute/clc9c0qmd.h
// (NVC9C0_QMDV03_00_*; the same V03 fields are in clc6c0qmd.h/clc7c0qmd.h/clcbc0qmd.h) and
// clcec0qmd.h (NVCEC0_QMDV05_00_*), commit c8607fe5. A field is {name, lo, width, stride,
// count}: bit positions are absolute in the QMD (dword d, bit b = 32*d + b), and an indexed
// field i sits at lo + i*stride for i < count. Counts are not in the documentation's macros;
// they follow from the layout: 8 constant-buffer banks, 3 release slots (V05), 2 dependent QMDs
// (V05); TPC_DISABLE_MASK lists its first word only. Values keep the documentation's names.
// tests/autogen/nv_data_test.cpp checks consistency: every field inside 256/384 bytes, no two
// fields overlapping, encode/decode round trips.
#pragma once

#include <cstdint>

#include "rawgpu/base/bits.h"

namespace rawgpu::autogen::nv::qmd {

struct QmdField {
  const char* name;
  uint32_t lo;
  uint32_t width;
  uint32_t stride;  // 0: not indexed
  uint32_t count;   // number of instances (1 when not indexed)

  // The bit field of instance i (asserted i < count).
  constexpr BitField at(uint32_t i = 0) const {
    RG_ASSERT(i < count);
    return {lo + i * stride, width};
  }
  constexpr uint32_t hi(uint32_t i = 0) const { return lo + i * stride + width - 1; }
};

// QMD V03_00: 256 bytes. Written from NVIDIA open-gpu-doc classes/compute/clc9c0qmd.h
// (NVC9C0_QMDV03_00_* MW(hi:lo) definitions), commit c8607fe5.
namespace v03 {
inline constexpr uint32_t kBytes = 256;

inline constexpr QmdField OUTER_PUT{"OUTER_PUT", 0, 31, 0, 1};                           // 30:0
inline constexpr QmdField OUTER_OVERFLOW{"OUTER_OVERFLOW", 31, 1, 0, 1};                 // 31:31
inline constexpr QmdField OUTER_GET{"OUTER_GET", 32, 31, 0, 1};                          // 62:32
inline constexpr QmdField OUTER_STICKY_OVERFLOW{"OUTER_STICKY_OVERFLOW", 63, 1, 0, 1};   // 63:63
inline constexpr QmdField INNER_GET{"INNER_GET", 64, 31, 0, 1};                          // 94:64
inline constexpr QmdField INNER_OVERFLOW{"INNER_OVERFLOW", 95, 1, 0, 1};                 // 95:95
inline constexpr QmdField INNER_PUT{"INNER_PUT", 96, 31, 0, 1};                          // 126:96
inline constexpr QmdField INNER_STICKY_OVERFLOW{"INNER_STICKY_OVERFLOW", 127, 1, 0, 1};  // 127:127
inline constexpr QmdField QMD_GROUP_ID{"QMD_GROUP_ID", 128, 6, 0, 1};                    // 133:128
inline constexpr QmdField SM_GLOBAL_CACHING_ENABLE{"SM_GLOBAL_CACHING_ENABLE", 134, 1, 0,
                                                   1};  // 134:134
inline constexpr QmdField RUN_CTA_IN_ONE_SM_PARTITION{"RUN_CTA_IN_ONE_SM_PARTITION", 135, 1, 0,
                                                      1};      // 135:135
inline constexpr QmdField IS_QUEUE{"IS_QUEUE", 136, 1, 0, 1};  // 136:136
inline constexpr QmdField ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST{
    "ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST", 137, 1, 0, 1};  // 137:137
inline constexpr QmdField REQUIRE_SCHEDULING_PCAS{"REQUIRE_SCHEDULING_PCAS", 140, 1, 0,
                                                  1};                               // 140:140
inline constexpr QmdField DEPENDENCE_COUNTER{"DEPENDENCE_COUNTER", 142, 16, 0, 1};  // 157:142
inline constexpr QmdField SELF_COPY_ON_COMPLETION{"SELF_COPY_ON_COMPLETION", 158, 1, 0,
                                                  1};                                  // 158:158
inline constexpr QmdField CIRCULAR_QUEUE_SIZE{"CIRCULAR_QUEUE_SIZE", 160, 25, 0, 1};   // 184:160
inline constexpr QmdField DEMOTE_L2_EVICT_LAST{"DEMOTE_L2_EVICT_LAST", 185, 1, 0, 1};  // 185:185
inline constexpr QmdField INVALIDATE_TEXTURE_HEADER_CACHE{"INVALIDATE_TEXTURE_HEADER_CACHE", 186, 1,
                                                          0, 1};  // 186:186
inline constexpr QmdField INVALIDATE_TEXTURE_SAMPLER_CACHE{"INVALIDATE_TEXTURE_SAMPLER_CACHE", 187,
                                                           1, 0, 1};  // 187:187
inline constexpr QmdField INVALIDATE_TEXTURE_DATA_CACHE{"INVALIDATE_TEXTURE_DATA_CACHE", 188, 1, 0,
                                                        1};  // 188:188
inline constexpr QmdField INVALIDATE_SHADER_DATA_CACHE{"INVALIDATE_SHADER_DATA_CACHE", 189, 1, 0,
                                                       1};  // 189:189
inline constexpr QmdField INVALIDATE_INSTRUCTION_CACHE{"INVALIDATE_INSTRUCTION_CACHE", 190, 1, 0,
                                                       1};  // 190:190
inline constexpr QmdField INVALIDATE_SHADER_CONSTANT_CACHE{"INVALIDATE_SHADER_CONSTANT_CACHE", 191,
                                                           1, 0, 1};  // 191:191
inline constexpr QmdField CTA_RASTER_WIDTH_RESUME{"CTA_RASTER_WIDTH_RESUME", 192, 32, 0,
                                                  1};  // 223:192
inline constexpr QmdField CTA_RASTER_HEIGHT_RESUME{"CTA_RASTER_HEIGHT_RESUME", 224, 16, 0,
                                                   1};  // 239:224
inline constexpr QmdField CTA_RASTER_DEPTH_RESUME{"CTA_RASTER_DEPTH_RESUME", 240, 16, 0,
                                                  1};  // 255:240
inline constexpr QmdField PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED{"PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED",
                                                              256, 32, 0, 1};  // 287:256
inline constexpr QmdField CIRCULAR_QUEUE_ADDR_LOWER{"CIRCULAR_QUEUE_ADDR_LOWER", 288, 32, 0,
                                                    1};  // 319:288
inline constexpr QmdField CIRCULAR_QUEUE_ADDR_UPPER{"CIRCULAR_QUEUE_ADDR_UPPER", 320, 8, 0,
                                                    1};  // 327:320
inline constexpr QmdField CIRCULAR_QUEUE_ENTRY_SIZE{"CIRCULAR_QUEUE_ENTRY_SIZE", 336, 16, 0,
                                                    1};  // 351:336
inline constexpr QmdField CWD_REFERENCE_COUNT_ID{"CWD_REFERENCE_COUNT_ID", 352, 6, 0,
                                                 1};  // 357:352
inline constexpr QmdField CWD_REFERENCE_COUNT_DELTA_MINUS_ONE{"CWD_REFERENCE_COUNT_DELTA_MINUS_ONE",
                                                              358, 8, 0, 1};  // 365:358
inline constexpr QmdField CWD_REFERENCE_COUNT_INCR_ENABLE{"CWD_REFERENCE_COUNT_INCR_ENABLE", 367, 1,
                                                          0, 1};                         // 367:367
inline constexpr QmdField CWD_MEMBAR_TYPE{"CWD_MEMBAR_TYPE", 368, 2, 0, 1};              // 369:368
inline constexpr QmdField SEQUENTIALLY_RUN_CTAS{"SEQUENTIALLY_RUN_CTAS", 370, 1, 0, 1};  // 370:370
inline constexpr QmdField CWD_REFERENCE_COUNT_DECR_ENABLE{"CWD_REFERENCE_COUNT_DECR_ENABLE", 371, 1,
                                                          0, 1};  // 371:371
inline constexpr QmdField SM_DISABLE_MASK_EXT_LOWER{"SM_DISABLE_MASK_EXT_LOWER", 372, 6, 0,
                                                    1};  // 377:372
inline constexpr QmdField API_VISIBLE_CALL_LIMIT{"API_VISIBLE_CALL_LIMIT", 378, 1, 0,
                                                 1};  // 378:378
inline constexpr QmdField SM_DISABLE_MASK_EXT_UPPER{"SM_DISABLE_MASK_EXT_UPPER", 379, 2, 0,
                                                    1};                  // 380:379
inline constexpr QmdField SAMPLER_INDEX{"SAMPLER_INDEX", 382, 1, 0, 1};  // 382:382
inline constexpr QmdField DISABLE_AUTO_INVALIDATE{"DISABLE_AUTO_INVALIDATE", 383, 1, 0,
                                                  1};                             // 383:383
inline constexpr QmdField CTA_RASTER_WIDTH{"CTA_RASTER_WIDTH", 384, 32, 0, 1};    // 415:384
inline constexpr QmdField CTA_RASTER_HEIGHT{"CTA_RASTER_HEIGHT", 416, 16, 0, 1};  // 431:416
inline constexpr QmdField CTA_RASTER_DEPTH{"CTA_RASTER_DEPTH", 448, 16, 0, 1};    // 463:448
inline constexpr QmdField DEPENDENT_QMD0_POINTER{"DEPENDENT_QMD0_POINTER", 480, 32, 0,
                                                 1};                                     // 511:480
inline constexpr QmdField DEPENDENT_QMD0_ENABLE{"DEPENDENT_QMD0_ENABLE", 512, 1, 0, 1};  // 512:512
inline constexpr QmdField DEPENDENT_QMD0_ACTION{"DEPENDENT_QMD0_ACTION", 513, 3, 0, 1};  // 515:513
inline constexpr QmdField DEPENDENT_QMD0_PREFETCH{"DEPENDENT_QMD0_PREFETCH", 516, 1, 0,
                                                  1};                                    // 516:516
inline constexpr QmdField DEPENDENT_QMD1_ENABLE{"DEPENDENT_QMD1_ENABLE", 517, 1, 0, 1};  // 517:517
inline constexpr QmdField DEPENDENT_QMD1_ACTION{"DEPENDENT_QMD1_ACTION", 518, 3, 0, 1};  // 520:518
inline constexpr QmdField DEPENDENT_QMD1_PREFETCH{"DEPENDENT_QMD1_PREFETCH", 521, 1, 0,
                                                  1};  // 521:521
inline constexpr QmdField COALESCE_WAITING_PERIOD{"COALESCE_WAITING_PERIOD", 522, 8, 0,
                                                  1};  // 529:522
inline constexpr QmdField QUEUE_ENTRIES_PER_CTA_LOG2{"QUEUE_ENTRIES_PER_CTA_LOG2", 530, 5, 0,
                                                     1};  // 534:530
inline constexpr QmdField OCCUPANCY_THRESHOLD_SHARED_MEM{"OCCUPANCY_THRESHOLD_SHARED_MEM", 535, 8,
                                                         0, 1};                     // 542:535
inline constexpr QmdField CTA_LAUNCH_QUEUE{"CTA_LAUNCH_QUEUE", 543, 1, 0, 1};       // 543:543
inline constexpr QmdField SHARED_MEMORY_SIZE{"SHARED_MEMORY_SIZE", 544, 18, 0, 1};  // 561:544
inline constexpr QmdField MIN_SM_CONFIG_SHARED_MEM_SIZE{"MIN_SM_CONFIG_SHARED_MEM_SIZE", 562, 6, 0,
                                                        1};  // 567:562
inline constexpr QmdField MAX_SM_CONFIG_SHARED_MEM_SIZE{"MAX_SM_CONFIG_SHARED_MEM_SIZE", 569, 6, 0,
                                                        1};                      // 574:569
inline constexpr QmdField QMD_VERSION{"QMD_VERSION", 576, 4, 0, 1};              // 579:576
inline constexpr QmdField QMD_MAJOR_VERSION{"QMD_MAJOR_VERSION", 580, 4, 0, 1};  // 583:580
inline constexpr QmdField OCCUPANCY_MAX_SHARED_MEM{"OCCUPANCY_MAX_SHARED_MEM", 584, 8, 0,
                                                   1};                                    // 591:584
inline constexpr QmdField CTA_THREAD_DIMENSION0{"CTA_THREAD_DIMENSION0", 592, 16, 0, 1};  // 607:592
inline constexpr QmdField CTA_THREAD_DIMENSION1{"CTA_THREAD_DIMENSION1", 608, 16, 0, 1};  // 623:608
inline constexpr QmdField CTA_THREAD_DIMENSION2{"CTA_THREAD_DIMENSION2", 624, 16, 0, 1};  // 639:624
inline constexpr QmdField CONSTANT_BUFFER_VALID{"CONSTANT_BUFFER_VALID", 640, 1, 1,
                                                8};                            // 640:640 + 1*i
inline constexpr QmdField REGISTER_COUNT_V{"REGISTER_COUNT_V", 648, 9, 0, 1};  // 656:648
inline constexpr QmdField TARGET_SM_CONFIG_SHARED_MEM_SIZE{"TARGET_SM_CONFIG_SHARED_MEM_SIZE", 657,
                                                           6, 0, 1};  // 662:657
inline constexpr QmdField SHARED_ALLOCATION_ENABLE{"SHARED_ALLOCATION_ENABLE", 663, 1, 0,
                                                   1};  // 663:663
inline constexpr QmdField FREE_CTA_SLOTS_EMPTY_SM{"FREE_CTA_SLOTS_EMPTY_SM", 664, 8, 0,
                                                  1};                                     // 671:664
inline constexpr QmdField SM_DISABLE_MASK_LOWER{"SM_DISABLE_MASK_LOWER", 672, 32, 0, 1};  // 703:672
inline constexpr QmdField SM_DISABLE_MASK_UPPER{"SM_DISABLE_MASK_UPPER", 704, 32, 0, 1};  // 735:704
inline constexpr QmdField SHADER_LOCAL_MEMORY_LOW_SIZE{"SHADER_LOCAL_MEMORY_LOW_SIZE", 736, 24, 0,
                                                       1};               // 759:736
inline constexpr QmdField BARRIER_COUNT{"BARRIER_COUNT", 763, 5, 0, 1};  // 767:763
inline constexpr QmdField RELEASE0_ADDRESS_LOWER{"RELEASE0_ADDRESS_LOWER", 768, 32, 0,
                                                 1};  // 799:768
inline constexpr QmdField RELEASE0_ADDRESS_UPPER{"RELEASE0_ADDRESS_UPPER", 800, 8, 0,
                                                 1};                                     // 807:800
inline constexpr QmdField RELEASE0_MEMBAR_TYPE{"RELEASE0_MEMBAR_TYPE", 819, 1, 0, 1};    // 819:819
inline constexpr QmdField RELEASE0_REDUCTION_OP{"RELEASE0_REDUCTION_OP", 820, 3, 0, 1};  // 822:820
inline constexpr QmdField RELEASE0_ENABLE{"RELEASE0_ENABLE", 823, 1, 0, 1};              // 823:823
inline constexpr QmdField RELEASE0_REDUCTION_FORMAT{"RELEASE0_REDUCTION_FORMAT", 824, 2, 0,
                                                    1};  // 825:824
inline constexpr QmdField RELEASE0_REDUCTION_ENABLE{"RELEASE0_REDUCTION_ENABLE", 826, 1, 0,
                                                    1};                              // 826:826
inline constexpr QmdField RELEASE0_TRAP_TYPE{"RELEASE0_TRAP_TYPE", 827, 2, 0, 1};    // 828:827
inline constexpr QmdField RELEASE0_PAYLOAD64B{"RELEASE0_PAYLOAD64B", 829, 1, 0, 1};  // 829:829
inline constexpr QmdField RELEASE0_STRUCTURE_SIZE{"RELEASE0_STRUCTURE_SIZE", 830, 2, 0,
                                                  1};  // 831:830
inline constexpr QmdField RELEASE0_PAYLOAD_LOWER{"RELEASE0_PAYLOAD_LOWER", 832, 32, 0,
                                                 1};  // 863:832
inline constexpr QmdField RELEASE0_PAYLOAD_UPPER{"RELEASE0_PAYLOAD_UPPER", 864, 32, 0,
                                                 1};  // 895:864
inline constexpr QmdField RELEASE1_ADDRESS_LOWER{"RELEASE1_ADDRESS_LOWER", 896, 32, 0,
                                                 1};  // 927:896
inline constexpr QmdField RELEASE1_ADDRESS_UPPER{"RELEASE1_ADDRESS_UPPER", 928, 8, 0,
                                                 1};                                     // 935:928
inline constexpr QmdField RELEASE1_MEMBAR_TYPE{"RELEASE1_MEMBAR_TYPE", 947, 1, 0, 1};    // 947:947
inline constexpr QmdField RELEASE1_REDUCTION_OP{"RELEASE1_REDUCTION_OP", 948, 3, 0, 1};  // 950:948
inline constexpr QmdField RELEASE1_ENABLE{"RELEASE1_ENABLE", 951, 1, 0, 1};              // 951:951
inline constexpr QmdField RELEASE1_REDUCTION_FORMAT{"RELEASE1_REDUCTION_FORMAT", 952, 2, 0,
                                                    1};  // 953:952
inline constexpr QmdField RELEASE1_REDUCTION_ENABLE{"RELEASE1_REDUCTION_ENABLE", 954, 1, 0,
                                                    1};                              // 954:954
inline constexpr QmdField RELEASE1_TRAP_TYPE{"RELEASE1_TRAP_TYPE", 955, 2, 0, 1};    // 956:955
inline constexpr QmdField RELEASE1_PAYLOAD64B{"RELEASE1_PAYLOAD64B", 957, 1, 0, 1};  // 957:957
inline constexpr QmdField RELEASE1_STRUCTURE_SIZE{"RELEASE1_STRUCTURE_SIZE", 958, 2, 0,
                                                  1};  // 959:958
inline constexpr QmdField RELEASE1_PAYLOAD_LOWER{"RELEASE1_PAYLOAD_LOWER", 960, 32, 0,
                                                 1};  // 991:960
inline constexpr QmdField RELEASE1_PAYLOAD_UPPER{"RELEASE1_PAYLOAD_UPPER", 992, 32, 0,
                                                 1};  // 1023:992
inline constexpr QmdField CONSTANT_BUFFER_ADDR_LOWER{"CONSTANT_BUFFER_ADDR_LOWER", 1024, 32, 64,
                                                     8};  // 1055:1024 + 64*i
inline constexpr QmdField CONSTANT_BUFFER_ADDR_UPPER{"CONSTANT_BUFFER_ADDR_UPPER", 1056, 17, 64,
                                                     8};  // 1072:1056 + 64*i
inline constexpr QmdField CONSTANT_BUFFER_PREFETCH_POST{"CONSTANT_BUFFER_PREFETCH_POST", 1073, 1,
                                                        64, 8};  // 1073:1073 + 64*i
inline constexpr QmdField CONSTANT_BUFFER_INVALIDATE{"CONSTANT_BUFFER_INVALIDATE", 1074, 1, 64,
                                                     8};  // 1074:1074 + 64*i
inline constexpr QmdField CONSTANT_BUFFER_SIZE_SHIFTED4{"CONSTANT_BUFFER_SIZE_SHIFTED4", 1075, 13,
                                                        64, 8};  // 1087:1075 + 64*i
inline constexpr QmdField PROGRAM_ADDRESS_LOWER{"PROGRAM_ADDRESS_LOWER", 1536, 32, 0,
                                                1};  // 1567:1536
inline constexpr QmdField PROGRAM_ADDRESS_UPPER{"PROGRAM_ADDRESS_UPPER", 1568, 17, 0,
                                                1};  // 1584:1568
inline constexpr QmdField SHADER_LOCAL_MEMORY_HIGH_SIZE{"SHADER_LOCAL_MEMORY_HIGH_SIZE", 1600, 24,
                                                        0, 1};  // 1623:1600
inline constexpr QmdField PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED{"PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED",
                                                              1632, 9, 0, 1};  // 1640:1632
inline constexpr QmdField PROGRAM_PREFETCH_SIZE{"PROGRAM_PREFETCH_SIZE", 1641, 9, 0,
                                                1};  // 1649:1641
inline constexpr QmdField PROGRAM_PREFETCH_TYPE{"PROGRAM_PREFETCH_TYPE", 1650, 2, 0,
                                                1};                     // 1651:1650
inline constexpr QmdField SASS_VERSION{"SASS_VERSION", 1656, 8, 0, 1};  // 1663:1656
inline constexpr QmdField RELEASE2_ADDRESS_LOWER{"RELEASE2_ADDRESS_LOWER", 1664, 32, 0,
                                                 1};  // 1695:1664
inline constexpr QmdField RELEASE2_ADDRESS_UPPER{"RELEASE2_ADDRESS_UPPER", 1696, 8, 0,
                                                 1};                                    // 1703:1696
inline constexpr QmdField RELEASE2_MEMBAR_TYPE{"RELEASE2_MEMBAR_TYPE", 1715, 1, 0, 1};  // 1715:1715
inline constexpr QmdField RELEASE2_REDUCTION_OP{"RELEASE2_REDUCTION_OP", 1716, 3, 0,
                                                1};                           // 1718:1716
inline constexpr QmdField RELEASE2_ENABLE{"RELEASE2_ENABLE", 1719, 1, 0, 1};  // 1719:1719
inline constexpr QmdField RELEASE2_REDUCTION_FORMAT{"RELEASE2_REDUCTION_FORMAT", 1720, 2, 0,
                                                    1};  // 1721:1720
inline constexpr QmdField RELEASE2_REDUCTION_ENABLE{"RELEASE2_REDUCTION_ENABLE", 1722, 1, 0,
                                                    1};                               // 1722:1722
inline constexpr QmdField RELEASE2_TRAP_TYPE{"RELEASE2_TRAP_TYPE", 1723, 2, 0, 1};    // 1724:1723
inline constexpr QmdField RELEASE2_PAYLOAD64B{"RELEASE2_PAYLOAD64B", 1725, 1, 0, 1};  // 1725:1725
inline constexpr QmdField RELEASE2_STRUCTURE_SIZE{"RELEASE2_STRUCTURE_SIZE", 1726, 2, 0,
                                                  1};  // 1727:1726
inline constexpr QmdField RELEASE2_PAYLOAD_LOWER{"RELEASE2_PAYLOAD_LOWER", 1728, 32, 0,
                                                 1};  // 1759:1728
inline constexpr QmdField RELEASE2_PAYLOAD_UPPER{"RELEASE2_PAYLOAD_UPPER", 1760, 32, 0,
                                                 1};  // 1791:1760
inline constexpr QmdField OCCUPANCY_THRESHOLD_WARP{"OCCUPANCY_THRESHOLD_WARP", 1792, 8, 0,
                                                   1};                              // 1799:1792
inline constexpr QmdField OCCUPANCY_MAX_WARP{"OCCUPANCY_MAX_WARP", 1800, 8, 0, 1};  // 1807:1800
inline constexpr QmdField OCCUPANCY_THRESHOLD_REGISTER{"OCCUPANCY_THRESHOLD_REGISTER", 1808, 8, 0,
                                                       1};  // 1815:1808
inline constexpr QmdField OCCUPANCY_MAX_REGISTER{"OCCUPANCY_MAX_REGISTER", 1816, 8, 0,
                                                 1};                               // 1823:1816
inline constexpr QmdField HW_ONLY_INNER_GET{"HW_ONLY_INNER_GET", 1824, 31, 0, 1};  // 1854:1824
inline constexpr QmdField HW_ONLY_REQUIRE_SCHEDULING_PCAS{"HW_ONLY_REQUIRE_SCHEDULING_PCAS", 1855,
                                                          1, 0, 1};                // 1855:1855
inline constexpr QmdField HW_ONLY_INNER_PUT{"HW_ONLY_INNER_PUT", 1856, 31, 0, 1};  // 1886:1856
inline constexpr QmdField HW_ONLY_SPAN_LIST_HEAD_INDEX{"HW_ONLY_SPAN_LIST_HEAD_INDEX", 1888, 30, 0,
                                                       1};  // 1917:1888
inline constexpr QmdField HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID{"HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID",
                                                             1919, 1, 0, 1};  // 1919:1919
inline constexpr QmdField HW_ONLY_SKED_NEXT_QMD_POINTER{"HW_ONLY_SKED_NEXT_QMD_POINTER", 1920, 32,
                                                        0, 1};  // 1951:1920
inline constexpr QmdField HW_ONLY_DEPENDENCE_COUNTER{"HW_ONLY_DEPENDENCE_COUNTER", 1952, 16, 0,
                                                     1};                     // 1967:1952
inline constexpr QmdField DEBUG_ID_UPPER{"DEBUG_ID_UPPER", 1984, 32, 0, 1};  // 2015:1984
inline constexpr QmdField DEBUG_ID_LOWER{"DEBUG_ID_LOWER", 2016, 32, 0, 1};  // 2047:2016

// Field values.
inline constexpr uint32_t RUN_CTA_IN_ONE_SM_PARTITION_FALSE = 0x0;
inline constexpr uint32_t RUN_CTA_IN_ONE_SM_PARTITION_TRUE = 0x1;
inline constexpr uint32_t IS_QUEUE_FALSE = 0x0;
inline constexpr uint32_t IS_QUEUE_TRUE = 0x1;
inline constexpr uint32_t ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST_FALSE = 0x0;
inline constexpr uint32_t ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST_TRUE = 0x1;
inline constexpr uint32_t REQUIRE_SCHEDULING_PCAS_FALSE = 0x0;
inline constexpr uint32_t REQUIRE_SCHEDULING_PCAS_TRUE = 0x1;
inline constexpr uint32_t SELF_COPY_ON_COMPLETION_FALSE = 0x0;
inline constexpr uint32_t SELF_COPY_ON_COMPLETION_TRUE = 0x1;
inline constexpr uint32_t INVALIDATE_TEXTURE_HEADER_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_TEXTURE_HEADER_CACHE_TRUE = 0x1;
inline constexpr uint32_t INVALIDATE_TEXTURE_SAMPLER_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_TEXTURE_SAMPLER_CACHE_TRUE = 0x1;
inline constexpr uint32_t INVALIDATE_TEXTURE_DATA_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_TEXTURE_DATA_CACHE_TRUE = 0x1;
inline constexpr uint32_t INVALIDATE_SHADER_DATA_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_SHADER_DATA_CACHE_TRUE = 0x1;
inline constexpr uint32_t INVALIDATE_INSTRUCTION_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_INSTRUCTION_CACHE_TRUE = 0x1;
inline constexpr uint32_t INVALIDATE_SHADER_CONSTANT_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_SHADER_CONSTANT_CACHE_TRUE = 0x1;
inline constexpr uint32_t CWD_REFERENCE_COUNT_INCR_ENABLE_FALSE = 0x0;
inline constexpr uint32_t CWD_REFERENCE_COUNT_INCR_ENABLE_TRUE = 0x1;
inline constexpr uint32_t CWD_MEMBAR_TYPE_L1_NONE = 0x0;
inline constexpr uint32_t CWD_MEMBAR_TYPE_L1_SYSMEMBAR = 0x1;
inline constexpr uint32_t CWD_MEMBAR_TYPE_L1_MEMBAR = 0x3;
inline constexpr uint32_t SEQUENTIALLY_RUN_CTAS_FALSE = 0x0;
inline constexpr uint32_t SEQUENTIALLY_RUN_CTAS_TRUE = 0x1;
inline constexpr uint32_t CWD_REFERENCE_COUNT_DECR_ENABLE_FALSE = 0x0;
inline constexpr uint32_t CWD_REFERENCE_COUNT_DECR_ENABLE_TRUE = 0x1;
inline constexpr uint32_t API_VISIBLE_CALL_LIMIT__32 = 0x0;
inline constexpr uint32_t API_VISIBLE_CALL_LIMIT_NO_CHECK = 0x1;
inline constexpr uint32_t SAMPLER_INDEX_INDEPENDENTLY = 0x0;
inline constexpr uint32_t SAMPLER_INDEX_VIA_HEADER_INDEX = 0x1;
inline constexpr uint32_t DISABLE_AUTO_INVALIDATE_FALSE = 0x0;
inline constexpr uint32_t DISABLE_AUTO_INVALIDATE_TRUE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD0_ENABLE_FALSE = 0x0;
inline constexpr uint32_t DEPENDENT_QMD0_ENABLE_TRUE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD0_ACTION_QMD_INCREMENT_PUT = 0x0;
inline constexpr uint32_t DEPENDENT_QMD0_ACTION_QMD_SCHEDULE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD0_ACTION_QMD_INVALIDATE_COPY_SCHEDULE = 0x3;
inline constexpr uint32_t DEPENDENT_QMD0_ACTION_QMD_DECREMENT_DEPENDENCE = 0x4;
inline constexpr uint32_t DEPENDENT_QMD0_PREFETCH_FALSE = 0x0;
inline constexpr uint32_t DEPENDENT_QMD0_PREFETCH_TRUE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD1_ENABLE_FALSE = 0x0;
inline constexpr uint32_t DEPENDENT_QMD1_ENABLE_TRUE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD1_ACTION_QMD_INCREMENT_PUT = 0x0;
inline constexpr uint32_t DEPENDENT_QMD1_ACTION_QMD_SCHEDULE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD1_ACTION_QMD_INVALIDATE_COPY_SCHEDULE = 0x3;
inline constexpr uint32_t DEPENDENT_QMD1_ACTION_QMD_DECREMENT_DEPENDENCE = 0x4;
inline constexpr uint32_t DEPENDENT_QMD1_PREFETCH_FALSE = 0x0;
inline constexpr uint32_t DEPENDENT_QMD1_PREFETCH_TRUE = 0x1;
inline constexpr uint32_t CONSTANT_BUFFER_VALID_FALSE = 0x0;
inline constexpr uint32_t CONSTANT_BUFFER_VALID_TRUE = 0x1;
inline constexpr uint32_t SHARED_ALLOCATION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t SHARED_ALLOCATION_ENABLE_TRUE = 0x1;
inline constexpr uint32_t RELEASE0_MEMBAR_TYPE_FE_NONE = 0x0;
inline constexpr uint32_t RELEASE0_MEMBAR_TYPE_FE_SYSMEMBAR = 0x1;
inline constexpr uint32_t RELEASE0_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t RELEASE0_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t RELEASE0_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t RELEASE0_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t RELEASE0_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t RELEASE0_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t RELEASE0_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t RELEASE0_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr uint32_t RELEASE0_ENABLE_FALSE = 0x0;
inline constexpr uint32_t RELEASE0_ENABLE_TRUE = 0x1;
inline constexpr uint32_t RELEASE0_REDUCTION_FORMAT_UNSIGNED = 0x0;
inline constexpr uint32_t RELEASE0_REDUCTION_FORMAT_SIGNED = 0x1;
inline constexpr uint32_t RELEASE0_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t RELEASE0_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr uint32_t RELEASE0_TRAP_TYPE_TRAP_NONE = 0x0;
inline constexpr uint32_t RELEASE0_TRAP_TYPE_TRAP_UNCONDITIONAL = 0x1;
inline constexpr uint32_t RELEASE0_TRAP_TYPE_TRAP_CONDITIONAL = 0x2;
inline constexpr uint32_t RELEASE0_TRAP_TYPE_TRAP_CONDITIONAL_EXT = 0x3;
inline constexpr uint32_t RELEASE0_PAYLOAD64B_FALSE = 0x0;
inline constexpr uint32_t RELEASE0_PAYLOAD64B_TRUE = 0x1;
inline constexpr uint32_t RELEASE0_STRUCTURE_SIZE_SEMAPHORE_FOUR_WORDS = 0x0;
inline constexpr uint32_t RELEASE0_STRUCTURE_SIZE_SEMAPHORE_ONE_WORD = 0x1;
inline constexpr uint32_t RELEASE0_STRUCTURE_SIZE_SEMAPHORE_TWO_WORDS = 0x2;
inline constexpr uint32_t RELEASE1_MEMBAR_TYPE_FE_NONE = 0x0;
inline constexpr uint32_t RELEASE1_MEMBAR_TYPE_FE_SYSMEMBAR = 0x1;
inline constexpr uint32_t RELEASE1_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t RELEASE1_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t RELEASE1_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t RELEASE1_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t RELEASE1_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t RELEASE1_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t RELEASE1_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t RELEASE1_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr uint32_t RELEASE1_ENABLE_FALSE = 0x0;
inline constexpr uint32_t RELEASE1_ENABLE_TRUE = 0x1;
inline constexpr uint32_t RELEASE1_REDUCTION_FORMAT_UNSIGNED = 0x0;
inline constexpr uint32_t RELEASE1_REDUCTION_FORMAT_SIGNED = 0x1;
inline constexpr uint32_t RELEASE1_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t RELEASE1_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr uint32_t RELEASE1_TRAP_TYPE_TRAP_NONE = 0x0;
inline constexpr uint32_t RELEASE1_TRAP_TYPE_TRAP_UNCONDITIONAL = 0x1;
inline constexpr uint32_t RELEASE1_TRAP_TYPE_TRAP_CONDITIONAL = 0x2;
inline constexpr uint32_t RELEASE1_TRAP_TYPE_TRAP_CONDITIONAL_EXT = 0x3;
inline constexpr uint32_t RELEASE1_PAYLOAD64B_FALSE = 0x0;
inline constexpr uint32_t RELEASE1_PAYLOAD64B_TRUE = 0x1;
inline constexpr uint32_t RELEASE1_STRUCTURE_SIZE_SEMAPHORE_FOUR_WORDS = 0x0;
inline constexpr uint32_t RELEASE1_STRUCTURE_SIZE_SEMAPHORE_ONE_WORD = 0x1;
inline constexpr uint32_t RELEASE1_STRUCTURE_SIZE_SEMAPHORE_TWO_WORDS = 0x2;
inline constexpr uint32_t CONSTANT_BUFFER_PREFETCH_POST_FALSE = 0x0;
inline constexpr uint32_t CONSTANT_BUFFER_PREFETCH_POST_TRUE = 0x1;
inline constexpr uint32_t CONSTANT_BUFFER_INVALIDATE_FALSE = 0x0;
inline constexpr uint32_t CONSTANT_BUFFER_INVALIDATE_TRUE = 0x1;
inline constexpr uint32_t PROGRAM_PREFETCH_TYPE_PREFETCH_LAUNCH = 0x0;
inline constexpr uint32_t PROGRAM_PREFETCH_TYPE_PREFTECH_POST = 0x1;
inline constexpr uint32_t RELEASE2_MEMBAR_TYPE_FE_NONE = 0x0;
inline constexpr uint32_t RELEASE2_MEMBAR_TYPE_FE_SYSMEMBAR = 0x1;
inline constexpr uint32_t RELEASE2_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t RELEASE2_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t RELEASE2_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t RELEASE2_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t RELEASE2_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t RELEASE2_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t RELEASE2_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t RELEASE2_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr uint32_t RELEASE2_ENABLE_FALSE = 0x0;
inline constexpr uint32_t RELEASE2_ENABLE_TRUE = 0x1;
inline constexpr uint32_t RELEASE2_REDUCTION_FORMAT_UNSIGNED = 0x0;
inline constexpr uint32_t RELEASE2_REDUCTION_FORMAT_SIGNED = 0x1;
inline constexpr uint32_t RELEASE2_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t RELEASE2_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr uint32_t RELEASE2_TRAP_TYPE_TRAP_NONE = 0x0;
inline constexpr uint32_t RELEASE2_TRAP_TYPE_TRAP_UNCONDITIONAL = 0x1;
inline constexpr uint32_t RELEASE2_TRAP_TYPE_TRAP_CONDITIONAL = 0x2;
inline constexpr uint32_t RELEASE2_TRAP_TYPE_TRAP_CONDITIONAL_EXT = 0x3;
inline constexpr uint32_t RELEASE2_PAYLOAD64B_FALSE = 0x0;
inline constexpr uint32_t RELEASE2_PAYLOAD64B_TRUE = 0x1;
inline constexpr uint32_t RELEASE2_STRUCTURE_SIZE_SEMAPHORE_FOUR_WORDS = 0x0;
inline constexpr uint32_t RELEASE2_STRUCTURE_SIZE_SEMAPHORE_ONE_WORD = 0x1;
inline constexpr uint32_t RELEASE2_STRUCTURE_SIZE_SEMAPHORE_TWO_WORDS = 0x2;
inline constexpr uint32_t HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID_FALSE = 0x0;
inline constexpr uint32_t HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID_TRUE = 0x1;

inline constexpr QmdField kFields[] = {
    OUTER_PUT,
    OUTER_OVERFLOW,
    OUTER_GET,
    OUTER_STICKY_OVERFLOW,
    INNER_GET,
    INNER_OVERFLOW,
    INNER_PUT,
    INNER_STICKY_OVERFLOW,
    QMD_GROUP_ID,
    SM_GLOBAL_CACHING_ENABLE,
    RUN_CTA_IN_ONE_SM_PARTITION,
    IS_QUEUE,
    ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST,
    REQUIRE_SCHEDULING_PCAS,
    DEPENDENCE_COUNTER,
    SELF_COPY_ON_COMPLETION,
    CIRCULAR_QUEUE_SIZE,
    DEMOTE_L2_EVICT_LAST,
    INVALIDATE_TEXTURE_HEADER_CACHE,
    INVALIDATE_TEXTURE_SAMPLER_CACHE,
    INVALIDATE_TEXTURE_DATA_CACHE,
    INVALIDATE_SHADER_DATA_CACHE,
    INVALIDATE_INSTRUCTION_CACHE,
    INVALIDATE_SHADER_CONSTANT_CACHE,
    CTA_RASTER_WIDTH_RESUME,
    CTA_RASTER_HEIGHT_RESUME,
    CTA_RASTER_DEPTH_RESUME,
    PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED,
    CIRCULAR_QUEUE_ADDR_LOWER,
    CIRCULAR_QUEUE_ADDR_UPPER,
    CIRCULAR_QUEUE_ENTRY_SIZE,
    CWD_REFERENCE_COUNT_ID,
    CWD_REFERENCE_COUNT_DELTA_MINUS_ONE,
    CWD_REFERENCE_COUNT_INCR_ENABLE,
    CWD_MEMBAR_TYPE,
    SEQUENTIALLY_RUN_CTAS,
    CWD_REFERENCE_COUNT_DECR_ENABLE,
    SM_DISABLE_MASK_EXT_LOWER,
    API_VISIBLE_CALL_LIMIT,
    SM_DISABLE_MASK_EXT_UPPER,
    SAMPLER_INDEX,
    DISABLE_AUTO_INVALIDATE,
    CTA_RASTER_WIDTH,
    CTA_RASTER_HEIGHT,
    CTA_RASTER_DEPTH,
    DEPENDENT_QMD0_POINTER,
    DEPENDENT_QMD0_ENABLE,
    DEPENDENT_QMD0_ACTION,
    DEPENDENT_QMD0_PREFETCH,
    DEPENDENT_QMD1_ENABLE,
    DEPENDENT_QMD1_ACTION,
    DEPENDENT_QMD1_PREFETCH,
    COALESCE_WAITING_PERIOD,
    QUEUE_ENTRIES_PER_CTA_LOG2,
    OCCUPANCY_THRESHOLD_SHARED_MEM,
    CTA_LAUNCH_QUEUE,
    SHARED_MEMORY_SIZE,
    MIN_SM_CONFIG_SHARED_MEM_SIZE,
    MAX_SM_CONFIG_SHARED_MEM_SIZE,
    QMD_VERSION,
    QMD_MAJOR_VERSION,
    OCCUPANCY_MAX_SHARED_MEM,
    CTA_THREAD_DIMENSION0,
    CTA_THREAD_DIMENSION1,
    CTA_THREAD_DIMENSION2,
    CONSTANT_BUFFER_VALID,
    REGISTER_COUNT_V,
    TARGET_SM_CONFIG_SHARED_MEM_SIZE,
    SHARED_ALLOCATION_ENABLE,
    FREE_CTA_SLOTS_EMPTY_SM,
    SM_DISABLE_MASK_LOWER,
    SM_DISABLE_MASK_UPPER,
    SHADER_LOCAL_MEMORY_LOW_SIZE,
    BARRIER_COUNT,
    RELEASE0_ADDRESS_LOWER,
    RELEASE0_ADDRESS_UPPER,
    RELEASE0_MEMBAR_TYPE,
    RELEASE0_REDUCTION_OP,
    RELEASE0_ENABLE,
    RELEASE0_REDUCTION_FORMAT,
    RELEASE0_REDUCTION_ENABLE,
    RELEASE0_TRAP_TYPE,
    RELEASE0_PAYLOAD64B,
    RELEASE0_STRUCTURE_SIZE,
    RELEASE0_PAYLOAD_LOWER,
    RELEASE0_PAYLOAD_UPPER,
    RELEASE1_ADDRESS_LOWER,
    RELEASE1_ADDRESS_UPPER,
    RELEASE1_MEMBAR_TYPE,
    RELEASE1_REDUCTION_OP,
    RELEASE1_ENABLE,
    RELEASE1_REDUCTION_FORMAT,
    RELEASE1_REDUCTION_ENABLE,
    RELEASE1_TRAP_TYPE,
    RELEASE1_PAYLOAD64B,
    RELEASE1_STRUCTURE_SIZE,
    RELEASE1_PAYLOAD_LOWER,
    RELEASE1_PAYLOAD_UPPER,
    CONSTANT_BUFFER_ADDR_LOWER,
    CONSTANT_BUFFER_ADDR_UPPER,
    CONSTANT_BUFFER_PREFETCH_POST,
    CONSTANT_BUFFER_INVALIDATE,
    CONSTANT_BUFFER_SIZE_SHIFTED4,
    PROGRAM_ADDRESS_LOWER,
    PROGRAM_ADDRESS_UPPER,
    SHADER_LOCAL_MEMORY_HIGH_SIZE,
    PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED,
    PROGRAM_PREFETCH_SIZE,
    PROGRAM_PREFETCH_TYPE,
    SASS_VERSION,
    RELEASE2_ADDRESS_LOWER,
    RELEASE2_ADDRESS_UPPER,
    RELEASE2_MEMBAR_TYPE,
    RELEASE2_REDUCTION_OP,
    RELEASE2_ENABLE,
    RELEASE2_REDUCTION_FORMAT,
    RELEASE2_REDUCTION_ENABLE,
    RELEASE2_TRAP_TYPE,
    RELEASE2_PAYLOAD64B,
    RELEASE2_STRUCTURE_SIZE,
    RELEASE2_PAYLOAD_LOWER,
    RELEASE2_PAYLOAD_UPPER,
    OCCUPANCY_THRESHOLD_WARP,
    OCCUPANCY_MAX_WARP,
    OCCUPANCY_THRESHOLD_REGISTER,
    OCCUPANCY_MAX_REGISTER,
    HW_ONLY_INNER_GET,
    HW_ONLY_REQUIRE_SCHEDULING_PCAS,
    HW_ONLY_INNER_PUT,
    HW_ONLY_SPAN_LIST_HEAD_INDEX,
    HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID,
    HW_ONLY_SKED_NEXT_QMD_POINTER,
    HW_ONLY_DEPENDENCE_COUNTER,
    DEBUG_ID_UPPER,
    DEBUG_ID_LOWER,
};
}  // namespace v03

// QMD V05_00: 384 bytes. Written from NVIDIA open-gpu-doc classes/compute/clcec0qmd.h
// (NVCEC0_QMDV05_00_* MW(hi:lo) definitions), commit c8607fe5.
namespace v05 {
inline constexpr uint32_t kBytes = 384;

inline constexpr QmdField HW_ONLY_SPAN_LIST_HEAD_INDEX{"HW_ONLY_SPAN_LIST_HEAD_INDEX", 0, 30, 0,
                                                       1};  // 29:0
inline constexpr QmdField HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID{"HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID",
                                                             30, 1, 0, 1};  // 30:30
inline constexpr QmdField HW_ONLY_REQUIRE_SCHEDULING_PCAS{"HW_ONLY_REQUIRE_SCHEDULING_PCAS", 31, 1,
                                                          0, 1};  // 31:31
inline constexpr QmdField HW_ONLY_SKED_NEXT_QMD_POINTER{"HW_ONLY_SKED_NEXT_QMD_POINTER", 32, 32, 0,
                                                        1};                              // 63:32
inline constexpr QmdField INNER_GET{"INNER_GET", 64, 31, 0, 1};                          // 94:64
inline constexpr QmdField INNER_OVERFLOW{"INNER_OVERFLOW", 95, 1, 0, 1};                 // 95:95
inline constexpr QmdField INNER_PUT{"INNER_PUT", 96, 31, 0, 1};                          // 126:96
inline constexpr QmdField INNER_STICKY_OVERFLOW{"INNER_STICKY_OVERFLOW", 127, 1, 0, 1};  // 127:127
inline constexpr QmdField DEPENDENCE_COUNTER{"DEPENDENCE_COUNTER", 128, 16, 0, 1};       // 143:128
inline constexpr QmdField QMD_GROUP_ID{"QMD_GROUP_ID", 144, 6, 0, 1};                    // 149:144
inline constexpr QmdField ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST{
    "ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST", 150, 1, 0, 1};     // 150:150
inline constexpr QmdField QMD_TYPE{"QMD_TYPE", 151, 3, 0, 1};  // 153:151
inline constexpr QmdField NUM_SUB_TASKS_PER_TASK{"NUM_SUB_TASKS_PER_TASK", 154, 4, 0,
                                                 1};  // 157:154
inline constexpr QmdField REQUIRE_SCHEDULING_PCAS{"REQUIRE_SCHEDULING_PCAS", 158, 1, 0,
                                                  1};  // 158:158
inline constexpr QmdField TPC_DISABLE_MASK_VALID{"TPC_DISABLE_MASK_VALID", 159, 1, 0,
                                                 1};                                  // 159:159
inline constexpr QmdField CIRCULAR_QUEUE_SIZE{"CIRCULAR_QUEUE_SIZE", 160, 25, 0, 1};  // 184:160
inline constexpr QmdField HW_ONLY_DEPENDENCE_COUNTER{"HW_ONLY_DEPENDENCE_COUNTER", 192, 16, 0,
                                                     1};                           // 207:192
inline constexpr QmdField RESUME_SUB_TASK_ID{"RESUME_SUB_TASK_ID", 208, 3, 0, 1};  // 210:208
inline constexpr QmdField COMPLETED_SUB_TASK_MASK{"COMPLETED_SUB_TASK_MASK", 211, 8, 0,
                                                  1};                               // 218:211
inline constexpr QmdField GRID_WIDTH_RESUME{"GRID_WIDTH_RESUME", 224, 32, 0, 1};    // 255:224
inline constexpr QmdField GRID_HEIGHT_RESUME{"GRID_HEIGHT_RESUME", 256, 16, 0, 1};  // 271:256
inline constexpr QmdField GRID_DEPTH_RESUME{"GRID_DEPTH_RESUME", 272, 16, 0, 1};    // 287:272
inline constexpr QmdField RELEASE_ENABLE{"RELEASE_ENABLE", 288, 1, 16, 3};  // 288:288 + 16*i
inline constexpr QmdField RELEASE_STRUCTURE_SIZE{"RELEASE_STRUCTURE_SIZE", 289, 2, 16,
                                                 3};  // 290:289 + 16*i
inline constexpr QmdField RELEASE_MEMBAR_TYPE{"RELEASE_MEMBAR_TYPE", 291, 1, 16,
                                              3};  // 291:291 + 16*i
inline constexpr QmdField RELEASE_REDUCTION_ENABLE{"RELEASE_REDUCTION_ENABLE", 292, 1, 16,
                                                   3};  // 292:292 + 16*i
inline constexpr QmdField RELEASE_REDUCTION_OP{"RELEASE_REDUCTION_OP", 293, 3, 16,
                                               3};  // 295:293 + 16*i
inline constexpr QmdField RELEASE_REDUCTION_FORMAT{"RELEASE_REDUCTION_FORMAT", 296, 2, 16,
                                                   3};                            // 297:296 + 16*i
inline constexpr QmdField RELEASE_TRAP_TYPE{"RELEASE_TRAP_TYPE", 298, 2, 16, 3};  // 299:298 + 16*i
inline constexpr QmdField RELEASE_PAYLOAD64B{"RELEASE_PAYLOAD64B", 300, 1, 16,
                                             3};  // 300:300 + 16*i
inline constexpr QmdField RELEASE_RESERVED_INFO{"RELEASE_RESERVED_INFO", 301, 3, 16,
                                                3};  // 303:301 + 16*i
inline constexpr QmdField DEPENDENT_QMD0_ENABLE{"DEPENDENT_QMD0_ENABLE", 336, 1, 0, 1};  // 336:336
inline constexpr QmdField DEPENDENT_QMD0_ACTION{"DEPENDENT_QMD0_ACTION", 337, 3, 0, 1};  // 339:337
inline constexpr QmdField DEPENDENT_QMD0_PREFETCH{"DEPENDENT_QMD0_PREFETCH", 340, 1, 0,
                                                  1};  // 340:340
inline constexpr QmdField SELF_COPY_ON_COMPLETION{"SELF_COPY_ON_COMPLETION", 341, 1, 0,
                                                  1};                                  // 341:341
inline constexpr QmdField DEMOTE_L2_EVICT_LAST{"DEMOTE_L2_EVICT_LAST", 342, 1, 0, 1};  // 342:342
inline constexpr QmdField DISABLE_AUTO_INVALIDATE{"DISABLE_AUTO_INVALIDATE", 343, 1, 0,
                                                  1};                                    // 343:343
inline constexpr QmdField DEPENDENT_QMD1_ENABLE{"DEPENDENT_QMD1_ENABLE", 344, 1, 0, 1};  // 344:344
inline constexpr QmdField DEPENDENT_QMD1_ACTION{"DEPENDENT_QMD1_ACTION", 345, 3, 0, 1};  // 347:345
inline constexpr QmdField DEPENDENT_QMD1_PREFETCH{"DEPENDENT_QMD1_PREFETCH", 348, 1, 0,
                                                  1};  // 348:348
inline constexpr QmdField CORRELATION_ID_INTERNAL{"CORRELATION_ID_INTERNAL", 349, 1, 0,
                                                  1};  // 349:349
inline constexpr QmdField CWD_MEMBAR_TASK_CHASING_ENABLE{"CWD_MEMBAR_TASK_CHASING_ENABLE", 350, 1,
                                                         0, 1};  // 350:350
inline constexpr QmdField SHARED_ALLOCATION_ENABLE{"SHARED_ALLOCATION_ENABLE", 351, 1, 0,
                                                   1};                      // 351:351
inline constexpr QmdField CORRELATION_ID{"CORRELATION_ID", 352, 32, 0, 1};  // 383:352
inline constexpr QmdField DEPENDENT_QMD0_POINTER{"DEPENDENT_QMD0_POINTER", 384, 32, 0,
                                                 1};  // 415:384
inline constexpr QmdField DEPENDENT_QMD1_POINTER{"DEPENDENT_QMD1_POINTER", 416, 32, 0,
                                                 1};                   // 447:416
inline constexpr QmdField SASS_VERSION{"SASS_VERSION", 448, 8, 0, 1};  // 455:448
inline constexpr QmdField API_VISIBLE_CALL_LIMIT{"API_VISIBLE_CALL_LIMIT", 456, 1, 0,
                                                 1};                     // 456:456
inline constexpr QmdField SAMPLER_INDEX{"SAMPLER_INDEX", 457, 1, 0, 1};  // 457:457
inline constexpr QmdField CONSTANT_BANK_PREFETCH_PRE_MAX_SIZE_SHIFTED8{
    "CONSTANT_BANK_PREFETCH_PRE_MAX_SIZE_SHIFTED8", 458, 6, 0, 1};               // 463:458
inline constexpr QmdField QMD_MINOR_VERSION{"QMD_MINOR_VERSION", 464, 4, 0, 1};  // 467:464
inline constexpr QmdField QMD_MAJOR_VERSION{"QMD_MAJOR_VERSION", 468, 4, 0, 1};  // 471:468
inline constexpr QmdField INVALIDATE_TEXTURE_HEADER_CACHE{"INVALIDATE_TEXTURE_HEADER_CACHE", 472, 1,
                                                          0, 1};  // 472:472
inline constexpr QmdField INVALIDATE_TEXTURE_SAMPLER_CACHE{"INVALIDATE_TEXTURE_SAMPLER_CACHE", 473,
                                                           1, 0, 1};  // 473:473
inline constexpr QmdField INVALIDATE_TEXTURE_DATA_CACHE{"INVALIDATE_TEXTURE_DATA_CACHE", 474, 1, 0,
                                                        1};  // 474:474
inline constexpr QmdField INVALIDATE_SHADER_DATA_CACHE{"INVALIDATE_SHADER_DATA_CACHE", 475, 1, 0,
                                                       1};  // 475:475
inline constexpr QmdField INVALIDATE_INSTRUCTION_CACHE{"INVALIDATE_INSTRUCTION_CACHE", 476, 1, 0,
                                                       1};  // 476:476
inline constexpr QmdField INVALIDATE_SHADER_CONSTANT_CACHE{"INVALIDATE_SHADER_CONSTANT_CACHE", 477,
                                                           1, 0, 1};  // 477:477
inline constexpr QmdField LATCH_ACQUIRE_INVALIDATE_SHADER_DATA_CACHE{
    "LATCH_ACQUIRE_INVALIDATE_SHADER_DATA_CACHE", 478, 1, 0, 1};  // 478:478
inline constexpr QmdField LATCH_ACQUIRE_INVALIDATE_TEXTURE_DATA_CACHE{
    "LATCH_ACQUIRE_INVALIDATE_TEXTURE_DATA_CACHE", 479, 1, 0, 1};  // 479:479
inline constexpr QmdField RELEASE_SEMAPHORE0_ADDR_LOWER{"RELEASE_SEMAPHORE0_ADDR_LOWER", 480, 32, 0,
                                                        1};  // 511:480
inline constexpr QmdField RELEASE_SEMAPHORE0_ADDR_UPPER{"RELEASE_SEMAPHORE0_ADDR_UPPER", 512, 25, 0,
                                                        1};  // 536:512
inline constexpr QmdField RELEASE_SEMAPHORE0_PAYLOAD_LOWER{"RELEASE_SEMAPHORE0_PAYLOAD_LOWER", 544,
                                                           32, 0, 1};  // 575:544
inline constexpr QmdField RELEASE_SEMAPHORE0_PAYLOAD_UPPER{"RELEASE_SEMAPHORE0_PAYLOAD_UPPER", 576,
                                                           32, 0, 1};  // 607:576
inline constexpr QmdField CWD_REFERENCE_COUNT_DELTA_MINUS_ONE{"CWD_REFERENCE_COUNT_DELTA_MINUS_ONE",
                                                              608, 8, 0, 1};  // 615:608
inline constexpr QmdField CWD_REFERENCE_COUNT_ID{"CWD_REFERENCE_COUNT_ID", 616, 6, 0,
                                                 1};  // 621:616
inline constexpr QmdField CWD_REFERENCE_COUNT_INCR_ENABLE{"CWD_REFERENCE_COUNT_INCR_ENABLE", 622, 1,
                                                          0, 1};  // 622:622
inline constexpr QmdField CWD_REFERENCE_COUNT_DECR_ENABLE{"CWD_REFERENCE_COUNT_DECR_ENABLE", 623, 1,
                                                          0, 1};             // 623:623
inline constexpr QmdField CWD_MEMBAR_TYPE{"CWD_MEMBAR_TYPE", 624, 2, 0, 1};  // 625:624
inline constexpr QmdField LATCH_ACQUIRE_INVALIDATE_CONSTANT_CACHE{
    "LATCH_ACQUIRE_INVALIDATE_CONSTANT_CACHE", 626, 1, 0, 1};                  // 626:626
inline constexpr QmdField CTA_LAUNCH_QUEUE{"CTA_LAUNCH_QUEUE", 627, 1, 0, 1};  // 627:627
inline constexpr QmdField FREE_CTA_SLOTS_EMPTY_SM{"FREE_CTA_SLOTS_EMPTY_SM", 628, 8, 0,
                                                  1};                      // 635:628
inline constexpr QmdField SYNC_DOMAIN_ID{"SYNC_DOMAIN_ID", 636, 2, 0, 1};  // 637:636
inline constexpr QmdField PRE_EXIT_AT_LAST_CTA_LAUNCH{"PRE_EXIT_AT_LAST_CTA_LAUNCH", 638, 1, 0,
                                                      1};  // 638:638
inline constexpr QmdField ENABLE_PROGRAM_PRE_EXIT{"ENABLE_PROGRAM_PRE_EXIT", 639, 1, 0,
                                                  1};                               // 639:639
inline constexpr QmdField ARRIVE_AT_LATCH_ID{"ARRIVE_AT_LATCH_ID", 640, 32, 0, 1};  // 671:640
inline constexpr QmdField WAIT_ON_LATCH_ID{"WAIT_ON_LATCH_ID", 672, 32, 0, 1};      // 703:672
inline constexpr QmdField OCCUPANCY_THRESHOLD_SHARED_MEM{"OCCUPANCY_THRESHOLD_SHARED_MEM", 714, 8,
                                                         0, 1};  // 721:714
inline constexpr QmdField OCCUPANCY_MAX_SHARED_MEM{"OCCUPANCY_MAX_SHARED_MEM", 722, 8, 0,
                                                   1};                                   // 729:722
inline constexpr QmdField ARRIVE_AT_LATCH_VALID{"ARRIVE_AT_LATCH_VALID", 730, 1, 0, 1};  // 730:730
inline constexpr QmdField WAIT_ON_LATCH_VALID{"WAIT_ON_LATCH_VALID", 731, 1, 0, 1};      // 731:731
inline constexpr QmdField LATCH_RELEASE_INVALIDATE_ENABLE{"LATCH_RELEASE_INVALIDATE_ENABLE", 732, 1,
                                                          0, 1};  // 732:732
inline constexpr QmdField HOLD_CTA_LAUNCH_UNTIL_PARENT_LATCH_ACQUIRE_AND_CTA_COMPLETE{
    "HOLD_CTA_LAUNCH_UNTIL_PARENT_LATCH_ACQUIRE_AND_CTA_COMPLETE", 733, 1, 0, 1};  // 733:733
inline constexpr QmdField HOLD_MEMBAR_UNTIL_LATCH_ACQUIRE{"HOLD_MEMBAR_UNTIL_LATCH_ACQUIRE", 734, 1,
                                                          0, 1};  // 734:734
inline constexpr QmdField PRIORITY_DEMOTE_UNTIL_LATCH_ACQUIRE{"PRIORITY_DEMOTE_UNTIL_LATCH_ACQUIRE",
                                                              735, 1, 0, 1};  // 735:735
inline constexpr QmdField OCCUPANCY_THRESHOLD_WARP{"OCCUPANCY_THRESHOLD_WARP", 736, 8, 0,
                                                   1};                             // 743:736
inline constexpr QmdField OCCUPANCY_MAX_WARP{"OCCUPANCY_MAX_WARP", 744, 8, 0, 1};  // 751:744
inline constexpr QmdField OCCUPANCY_THRESHOLD_REGISTER{"OCCUPANCY_THRESHOLD_REGISTER", 752, 8, 0,
                                                       1};  // 759:752
inline constexpr QmdField OCCUPANCY_MAX_REGISTER{"OCCUPANCY_MAX_REGISTER", 760, 8, 0,
                                                 1};  // 767:760
inline constexpr QmdField RELEASE_SEMAPHORE1_ADDR_LOWER{"RELEASE_SEMAPHORE1_ADDR_LOWER", 768, 32, 0,
                                                        1};  // 799:768
inline constexpr QmdField RELEASE_SEMAPHORE1_ADDR_UPPER{"RELEASE_SEMAPHORE1_ADDR_UPPER", 800, 25, 0,
                                                        1};  // 824:800
inline constexpr QmdField RELEASE_SEMAPHORE1_PAYLOAD_LOWER{"RELEASE_SEMAPHORE1_PAYLOAD_LOWER", 832,
                                                           32, 0, 1};  // 863:832
inline constexpr QmdField RELEASE_SEMAPHORE1_PAYLOAD_UPPER{"RELEASE_SEMAPHORE1_PAYLOAD_UPPER", 864,
                                                           32, 0, 1};  // 895:864
inline constexpr QmdField RELEASE_SEMAPHORE2_ADDR_LOWER{"RELEASE_SEMAPHORE2_ADDR_LOWER", 896, 32, 0,
                                                        1};  // 927:896
inline constexpr QmdField RELEASE_SEMAPHORE2_ADDR_UPPER{"RELEASE_SEMAPHORE2_ADDR_UPPER", 928, 25, 0,
                                                        1};  // 952:928
inline constexpr QmdField RELEASE_SEMAPHORE2_PAYLOAD_LOWER{"RELEASE_SEMAPHORE2_PAYLOAD_LOWER", 960,
                                                           32, 0, 1};  // 991:960
inline constexpr QmdField RELEASE_SEMAPHORE2_PAYLOAD_UPPER{"RELEASE_SEMAPHORE2_PAYLOAD_UPPER", 992,
                                                           32, 0, 1};  // 1023:992
inline constexpr QmdField PROGRAM_ADDRESS_LOWER_SHIFTED4{"PROGRAM_ADDRESS_LOWER_SHIFTED4", 1024, 32,
                                                         0, 1};  // 1055:1024
inline constexpr QmdField PROGRAM_ADDRESS_UPPER_SHIFTED4{"PROGRAM_ADDRESS_UPPER_SHIFTED4", 1056, 21,
                                                         0, 1};  // 1076:1056
inline constexpr QmdField PROGRAM_PREFETCH_SIZE{"PROGRAM_PREFETCH_SIZE", 1077, 9, 0,
                                                1};  // 1085:1077
inline constexpr QmdField PROGRAM_PREFETCH_TYPE{"PROGRAM_PREFETCH_TYPE", 1086, 2, 0,
                                                1};  // 1087:1086
inline constexpr QmdField CTA_THREAD_DIMENSION0{"CTA_THREAD_DIMENSION0", 1088, 16, 0,
                                                1};  // 1103:1088
inline constexpr QmdField CTA_THREAD_DIMENSION1{"CTA_THREAD_DIMENSION1", 1104, 16, 0,
                                                1};  // 1119:1104
inline constexpr QmdField CTA_THREAD_DIMENSION2{"CTA_THREAD_DIMENSION2", 1120, 8, 0,
                                                1};                               // 1127:1120
inline constexpr QmdField REGISTER_COUNT{"REGISTER_COUNT", 1128, 9, 0, 1};        // 1136:1128
inline constexpr QmdField BARRIER_COUNT{"BARRIER_COUNT", 1137, 5, 0, 1};          // 1141:1137
inline constexpr QmdField ICC_PREFETCH_SIZE{"ICC_PREFETCH_SIZE", 1142, 6, 0, 1};  // 1147:1142
inline constexpr QmdField SHARED_MEMORY_SIZE_SHIFTED7{"SHARED_MEMORY_SIZE_SHIFTED7", 1152, 11, 0,
                                                      1};  // 1162:1152
inline constexpr QmdField MIN_SM_CONFIG_SHARED_MEM_SIZE{"MIN_SM_CONFIG_SHARED_MEM_SIZE", 1163, 6, 0,
                                                        1};  // 1168:1163
inline constexpr QmdField MAX_SM_CONFIG_SHARED_MEM_SIZE{"MAX_SM_CONFIG_SHARED_MEM_SIZE", 1169, 6, 0,
                                                        1};  // 1174:1169
inline constexpr QmdField TARGET_SM_CONFIG_SHARED_MEM_SIZE{"TARGET_SM_CONFIG_SHARED_MEM_SIZE", 1175,
                                                           6, 0, 1};  // 1180:1175
inline constexpr QmdField SHARED_MEM_BARRIER_INIT_ENABLE{"SHARED_MEM_BARRIER_INIT_ENABLE", 1181, 1,
                                                         0, 1};  // 1181:1181
inline constexpr QmdField SHADER_LOCAL_MEMORY_LOW_SIZE_SHIFTED4{
    "SHADER_LOCAL_MEMORY_LOW_SIZE_SHIFTED4", 1184, 16, 0, 1};  // 1199:1184
inline constexpr QmdField SHADER_LOCAL_MEMORY_HIGH_SIZE_SHIFTED4{
    "SHADER_LOCAL_MEMORY_HIGH_SIZE_SHIFTED4", 1200, 16, 0, 1};  // 1215:1200
inline constexpr QmdField VIRTUAL_RESOURCE_COUNT{"VIRTUAL_RESOURCE_COUNT", 1216, 8, 0,
                                                 1};                   // 1223:1216
inline constexpr QmdField GRID_WIDTH{"GRID_WIDTH", 1248, 32, 0, 1};    // 1279:1248
inline constexpr QmdField GRID_HEIGHT{"GRID_HEIGHT", 1280, 16, 0, 1};  // 1295:1280
inline constexpr QmdField GRID_DEPTH{"GRID_DEPTH", 1312, 16, 0, 1};    // 1327:1312
inline constexpr QmdField CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6{"CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6",
                                                              1344, 32, 64, 8};  // 1375:1344 + 64*i
inline constexpr QmdField CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6{"CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6",
                                                              1376, 19, 64, 8};  // 1394:1376 + 64*i
inline constexpr QmdField CONSTANT_BUFFER_SIZE_SHIFTED4{"CONSTANT_BUFFER_SIZE_SHIFTED4", 1395, 13,
                                                        64, 8};  // 1407:1395 + 64*i
inline constexpr QmdField CONSTANT_BUFFER_VALID{"CONSTANT_BUFFER_VALID", 1856, 1, 4,
                                                8};  // 1856:1856 + 4*i
inline constexpr QmdField CONSTANT_BUFFER_PREFETCH{"CONSTANT_BUFFER_PREFETCH", 1857, 2, 4,
                                                   8};  // 1858:1857 + 4*i
inline constexpr QmdField CONSTANT_BUFFER_INVALIDATE{"CONSTANT_BUFFER_INVALIDATE", 1859, 1, 4,
                                                     8};  // 1859:1859 + 4*i
inline constexpr QmdField PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED{"PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED",
                                                              1888, 32, 0, 1};  // 1919:1888
inline constexpr QmdField PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED{"PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED",
                                                              1920, 17, 0, 1};  // 1936:1920
inline constexpr QmdField GPC_CGA_WIDTH{"GPC_CGA_WIDTH", 2048, 6, 0, 1};        // 2053:2048
inline constexpr QmdField GPC_CGA_HEIGHT{"GPC_CGA_HEIGHT", 2056, 6, 0, 1};      // 2061:2056
inline constexpr QmdField GPC_CGA_DEPTH{"GPC_CGA_DEPTH", 2064, 6, 0, 1};        // 2069:2064
inline constexpr QmdField LARGE_GPC_CGA_WIDTH_MINUS_ONE{"LARGE_GPC_CGA_WIDTH_MINUS_ONE", 2072, 4, 0,
                                                        1};  // 2075:2072
inline constexpr QmdField LARGE_GPC_CGA_HEIGHT_MINUS_ONE{"LARGE_GPC_CGA_HEIGHT_MINUS_ONE", 2076, 4,
                                                         0, 1};  // 2079:2076
inline constexpr QmdField CGA_CTA_DISTRIBUTION_MODE{"CGA_CTA_DISTRIBUTION_MODE", 2111, 1, 0,
                                                    1};                      // 2111:2111
inline constexpr QmdField GPU_CGA_WIDTH{"GPU_CGA_WIDTH", 2112, 16, 0, 1};    // 2127:2112
inline constexpr QmdField GPU_CGA_HEIGHT{"GPU_CGA_HEIGHT", 2128, 16, 0, 1};  // 2143:2128
inline constexpr QmdField GPU_CGA_DEPTH{"GPU_CGA_DEPTH", 2144, 16, 0, 1};    // 2159:2144
inline constexpr QmdField DEBUG_ID_LOWER{"DEBUG_ID_LOWER", 2176, 32, 0, 1};  // 2207:2176
inline constexpr QmdField DEBUG_ID_UPPER{"DEBUG_ID_UPPER", 2208, 32, 0, 1};  // 2239:2208
inline constexpr QmdField TPC_DISABLE_MASK{"TPC_DISABLE_MASK", 2240, 32, 32,
                                           1};  // 2271:2240 + 32*i
inline constexpr QmdField INCOMPLETE_BOX_BASE_WIDTH_RESUME{"INCOMPLETE_BOX_BASE_WIDTH_RESUME", 2496,
                                                           32, 0, 1};  // 2527:2496
inline constexpr QmdField INCOMPLETE_BOX_BASE_HEIGHT_RESUME{"INCOMPLETE_BOX_BASE_HEIGHT_RESUME",
                                                            2528, 16, 0, 1};  // 2543:2528
inline constexpr QmdField INCOMPLETE_BOX_BASE_DEPTH_RESUME{"INCOMPLETE_BOX_BASE_DEPTH_RESUME", 2544,
                                                           16, 0, 1};  // 2559:2544
inline constexpr QmdField INCOMPLETE_BOX_OFFSET_WIDTH_RESUME{"INCOMPLETE_BOX_OFFSET_WIDTH_RESUME",
                                                             2560, 4, 0, 1};  // 2563:2560
inline constexpr QmdField INCOMPLETE_BOX_OFFSET_HEIGHT_RESUME{"INCOMPLETE_BOX_OFFSET_HEIGHT_RESUME",
                                                              2564, 4, 0, 1};  // 2567:2564
inline constexpr QmdField QUEUE_ENTRIES_PER_CTA_LOG2{"QUEUE_ENTRIES_PER_CTA_LOG2", 2592, 5, 0,
                                                     1};                           // 2596:2592
inline constexpr QmdField HW_ONLY_INNER_GET{"HW_ONLY_INNER_GET", 2624, 31, 0, 1};  // 2654:2624
inline constexpr QmdField HW_ONLY_INNER_PUT{"HW_ONLY_INNER_PUT", 2656, 31, 0, 1};  // 2686:2656
inline constexpr QmdField OUTER_PUT{"OUTER_PUT", 3008, 31, 0, 1};                  // 3038:3008
inline constexpr QmdField OUTER_OVERFLOW{"OUTER_OVERFLOW", 3039, 1, 0, 1};         // 3039:3039
inline constexpr QmdField OUTER_GET{"OUTER_GET", 3040, 31, 0, 1};                  // 3070:3040
inline constexpr QmdField OUTER_STICKY_OVERFLOW{"OUTER_STICKY_OVERFLOW", 3071, 1, 0,
                                                1};  // 3071:3071
inline constexpr QmdField DEPENDENT_QMD_ENABLE{"DEPENDENT_QMD_ENABLE", 336, 1, 8,
                                               2};  // 336:336 + 8*i
inline constexpr QmdField DEPENDENT_QMD_ACTION{"DEPENDENT_QMD_ACTION", 337, 3, 8,
                                               2};  // 339:337 + 8*i
inline constexpr QmdField DEPENDENT_QMD_PREFETCH{"DEPENDENT_QMD_PREFETCH", 340, 1, 8,
                                                 2};  // 340:340 + 8*i
inline constexpr QmdField DEPENDENT_QMD_POINTER{"DEPENDENT_QMD_POINTER", 384, 32, 32,
                                                2};  // 415:384 + 32*i

// Field values.
inline constexpr uint32_t HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID_FALSE = 0x0;
inline constexpr uint32_t HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID_TRUE = 0x1;
inline constexpr uint32_t ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST_FALSE = 0x0;
inline constexpr uint32_t ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST_TRUE = 0x1;
inline constexpr uint32_t QMD_TYPE_QUEUE = 0x0;
inline constexpr uint32_t QMD_TYPE_GRID_NULL = 0x1;
inline constexpr uint32_t QMD_TYPE_GRID_CTA = 0x2;
inline constexpr uint32_t QMD_TYPE_GRID_GPC_CGA = 0x3;
inline constexpr uint32_t QMD_TYPE_GRID_GPU_CGA = 0x4;
inline constexpr uint32_t QMD_TYPE_GRID_GPU_GPC_CGA = 0x5;
inline constexpr uint32_t REQUIRE_SCHEDULING_PCAS_FALSE = 0x0;
inline constexpr uint32_t REQUIRE_SCHEDULING_PCAS_TRUE = 0x1;
inline constexpr uint32_t TPC_DISABLE_MASK_VALID_FALSE = 0x0;
inline constexpr uint32_t TPC_DISABLE_MASK_VALID_TRUE = 0x1;
inline constexpr uint32_t RELEASE_ENABLE_FALSE = 0x0;
inline constexpr uint32_t RELEASE_ENABLE_TRUE = 0x1;
inline constexpr uint32_t RELEASE_STRUCTURE_SIZE_SEMAPHORE_FOUR_WORDS = 0x0;
inline constexpr uint32_t RELEASE_STRUCTURE_SIZE_SEMAPHORE_ONE_WORD = 0x1;
inline constexpr uint32_t RELEASE_STRUCTURE_SIZE_SEMAPHORE_TWO_WORDS = 0x2;
inline constexpr uint32_t RELEASE_MEMBAR_TYPE_FE_NONE = 0x0;
inline constexpr uint32_t RELEASE_MEMBAR_TYPE_FE_SYSMEMBAR = 0x1;
inline constexpr uint32_t RELEASE_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t RELEASE_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr uint32_t RELEASE_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t RELEASE_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t RELEASE_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t RELEASE_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t RELEASE_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t RELEASE_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t RELEASE_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t RELEASE_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr uint32_t RELEASE_REDUCTION_FORMAT_UNSIGNED = 0x0;
inline constexpr uint32_t RELEASE_REDUCTION_FORMAT_SIGNED = 0x1;
inline constexpr uint32_t RELEASE_TRAP_TYPE_TRAP_NONE = 0x0;
inline constexpr uint32_t RELEASE_TRAP_TYPE_TRAP_UNCONDITIONAL = 0x1;
inline constexpr uint32_t RELEASE_TRAP_TYPE_TRAP_CONDITIONAL = 0x2;
inline constexpr uint32_t RELEASE_TRAP_TYPE_TRAP_CONDITIONAL_EXT = 0x3;
inline constexpr uint32_t RELEASE_PAYLOAD64B_FALSE = 0x0;
inline constexpr uint32_t RELEASE_PAYLOAD64B_TRUE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD0_ENABLE_FALSE = 0x0;
inline constexpr uint32_t DEPENDENT_QMD0_ENABLE_TRUE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD0_ACTION_QMD_INCREMENT_PUT = 0x0;
inline constexpr uint32_t DEPENDENT_QMD0_ACTION_QMD_SCHEDULE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD0_ACTION_QMD_INVALIDATE_COPY_SCHEDULE = 0x3;
inline constexpr uint32_t DEPENDENT_QMD0_ACTION_QMD_DECREMENT_DEPENDENCE = 0x4;
inline constexpr uint32_t DEPENDENT_QMD0_PREFETCH_FALSE = 0x0;
inline constexpr uint32_t DEPENDENT_QMD0_PREFETCH_TRUE = 0x1;
inline constexpr uint32_t SELF_COPY_ON_COMPLETION_FALSE = 0x0;
inline constexpr uint32_t SELF_COPY_ON_COMPLETION_TRUE = 0x1;
inline constexpr uint32_t DEMOTE_L2_EVICT_LAST_FALSE = 0x0;
inline constexpr uint32_t DEMOTE_L2_EVICT_LAST_TRUE = 0x1;
inline constexpr uint32_t DISABLE_AUTO_INVALIDATE_FALSE = 0x0;
inline constexpr uint32_t DISABLE_AUTO_INVALIDATE_TRUE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD1_ENABLE_FALSE = 0x0;
inline constexpr uint32_t DEPENDENT_QMD1_ENABLE_TRUE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD1_ACTION_QMD_INCREMENT_PUT = 0x0;
inline constexpr uint32_t DEPENDENT_QMD1_ACTION_QMD_SCHEDULE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD1_ACTION_QMD_INVALIDATE_COPY_SCHEDULE = 0x3;
inline constexpr uint32_t DEPENDENT_QMD1_ACTION_QMD_DECREMENT_DEPENDENCE = 0x4;
inline constexpr uint32_t DEPENDENT_QMD1_PREFETCH_FALSE = 0x0;
inline constexpr uint32_t DEPENDENT_QMD1_PREFETCH_TRUE = 0x1;
inline constexpr uint32_t CORRELATION_ID_INTERNAL_FALSE = 0x0;
inline constexpr uint32_t CORRELATION_ID_INTERNAL_TRUE = 0x1;
inline constexpr uint32_t CWD_MEMBAR_TASK_CHASING_ENABLE_FALSE = 0x0;
inline constexpr uint32_t CWD_MEMBAR_TASK_CHASING_ENABLE_TRUE = 0x1;
inline constexpr uint32_t SHARED_ALLOCATION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t SHARED_ALLOCATION_ENABLE_TRUE = 0x1;
inline constexpr uint32_t API_VISIBLE_CALL_LIMIT__32 = 0x0;
inline constexpr uint32_t API_VISIBLE_CALL_LIMIT_NO_CHECK = 0x1;
inline constexpr uint32_t SAMPLER_INDEX_INDEPENDENTLY = 0x0;
inline constexpr uint32_t SAMPLER_INDEX_VIA_HEADER_INDEX = 0x1;
inline constexpr uint32_t INVALIDATE_TEXTURE_HEADER_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_TEXTURE_HEADER_CACHE_TRUE = 0x1;
inline constexpr uint32_t INVALIDATE_TEXTURE_SAMPLER_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_TEXTURE_SAMPLER_CACHE_TRUE = 0x1;
inline constexpr uint32_t INVALIDATE_TEXTURE_DATA_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_TEXTURE_DATA_CACHE_TRUE = 0x1;
inline constexpr uint32_t INVALIDATE_SHADER_DATA_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_SHADER_DATA_CACHE_TRUE = 0x1;
inline constexpr uint32_t INVALIDATE_INSTRUCTION_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_INSTRUCTION_CACHE_TRUE = 0x1;
inline constexpr uint32_t INVALIDATE_SHADER_CONSTANT_CACHE_FALSE = 0x0;
inline constexpr uint32_t INVALIDATE_SHADER_CONSTANT_CACHE_TRUE = 0x1;
inline constexpr uint32_t LATCH_ACQUIRE_INVALIDATE_SHADER_DATA_CACHE_FALSE = 0x0;
inline constexpr uint32_t LATCH_ACQUIRE_INVALIDATE_SHADER_DATA_CACHE_TRUE = 0x1;
inline constexpr uint32_t LATCH_ACQUIRE_INVALIDATE_TEXTURE_DATA_CACHE_FALSE = 0x0;
inline constexpr uint32_t LATCH_ACQUIRE_INVALIDATE_TEXTURE_DATA_CACHE_TRUE = 0x1;
inline constexpr uint32_t CWD_REFERENCE_COUNT_INCR_ENABLE_FALSE = 0x0;
inline constexpr uint32_t CWD_REFERENCE_COUNT_INCR_ENABLE_TRUE = 0x1;
inline constexpr uint32_t CWD_REFERENCE_COUNT_DECR_ENABLE_FALSE = 0x0;
inline constexpr uint32_t CWD_REFERENCE_COUNT_DECR_ENABLE_TRUE = 0x1;
inline constexpr uint32_t CWD_MEMBAR_TYPE_L1_NONE = 0x0;
inline constexpr uint32_t CWD_MEMBAR_TYPE_L1_SYSMEMBAR = 0x1;
inline constexpr uint32_t CWD_MEMBAR_TYPE_L1_MEMBAR = 0x3;
inline constexpr uint32_t LATCH_ACQUIRE_INVALIDATE_CONSTANT_CACHE_FALSE = 0x0;
inline constexpr uint32_t LATCH_ACQUIRE_INVALIDATE_CONSTANT_CACHE_TRUE = 0x1;
inline constexpr uint32_t PRE_EXIT_AT_LAST_CTA_LAUNCH_FALSE = 0x0;
inline constexpr uint32_t PRE_EXIT_AT_LAST_CTA_LAUNCH_TRUE = 0x1;
inline constexpr uint32_t ENABLE_PROGRAM_PRE_EXIT_FALSE = 0x0;
inline constexpr uint32_t ENABLE_PROGRAM_PRE_EXIT_TRUE = 0x1;
inline constexpr uint32_t ARRIVE_AT_LATCH_VALID_FALSE = 0x0;
inline constexpr uint32_t ARRIVE_AT_LATCH_VALID_TRUE = 0x1;
inline constexpr uint32_t WAIT_ON_LATCH_VALID_FALSE = 0x0;
inline constexpr uint32_t WAIT_ON_LATCH_VALID_TRUE = 0x1;
inline constexpr uint32_t LATCH_RELEASE_INVALIDATE_ENABLE_FALSE = 0x0;
inline constexpr uint32_t LATCH_RELEASE_INVALIDATE_ENABLE_TRUE = 0x1;
inline constexpr uint32_t HOLD_CTA_LAUNCH_UNTIL_PARENT_LATCH_ACQUIRE_AND_CTA_COMPLETE_FALSE = 0x0;
inline constexpr uint32_t HOLD_CTA_LAUNCH_UNTIL_PARENT_LATCH_ACQUIRE_AND_CTA_COMPLETE_TRUE = 0x1;
inline constexpr uint32_t HOLD_MEMBAR_UNTIL_LATCH_ACQUIRE_FALSE = 0x0;
inline constexpr uint32_t HOLD_MEMBAR_UNTIL_LATCH_ACQUIRE_TRUE = 0x1;
inline constexpr uint32_t PRIORITY_DEMOTE_UNTIL_LATCH_ACQUIRE_FALSE = 0x0;
inline constexpr uint32_t PRIORITY_DEMOTE_UNTIL_LATCH_ACQUIRE_TRUE = 0x1;
inline constexpr uint32_t PROGRAM_PREFETCH_TYPE_PREFETCH_LAUNCH = 0x0;
inline constexpr uint32_t PROGRAM_PREFETCH_TYPE_PREFTECH_POST = 0x1;
inline constexpr uint32_t CONSTANT_BUFFER_VALID_FALSE = 0x0;
inline constexpr uint32_t CONSTANT_BUFFER_VALID_TRUE = 0x1;
inline constexpr uint32_t CONSTANT_BUFFER_PREFETCH_PREFETCH_NONE = 0x0;
inline constexpr uint32_t CONSTANT_BUFFER_PREFETCH_PREFETCH_PRE = 0x1;
inline constexpr uint32_t CONSTANT_BUFFER_PREFETCH_PREFETCH_POST = 0x2;
inline constexpr uint32_t CONSTANT_BUFFER_INVALIDATE_FALSE = 0x0;
inline constexpr uint32_t CONSTANT_BUFFER_INVALIDATE_TRUE = 0x1;
inline constexpr uint32_t CGA_CTA_DISTRIBUTION_MODE_LOAD_BALANCING = 0x0;
inline constexpr uint32_t CGA_CTA_DISTRIBUTION_MODE_MULTI_CAST = 0x1;
inline constexpr uint32_t DEPENDENT_QMD_ENABLE_FALSE = 0x0;
inline constexpr uint32_t DEPENDENT_QMD_ENABLE_TRUE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD_ACTION_QMD_INCREMENT_PUT = 0x0;
inline constexpr uint32_t DEPENDENT_QMD_ACTION_QMD_SCHEDULE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD_ACTION_QMD_INVALIDATE_COPY_SCHEDULE = 0x3;
inline constexpr uint32_t DEPENDENT_QMD_ACTION_QMD_DECREMENT_DEPENDENCE = 0x4;
inline constexpr uint32_t DEPENDENT_QMD_PREFETCH_FALSE = 0x0;
inline constexpr uint32_t DEPENDENT_QMD_PREFETCH_TRUE = 0x1;

// The indexed DEPENDENT_QMD_*(i) fields alias DEPENDENT_QMD0_*/DEPENDENT_QMD1_* (the
// documentation defines both spellings); kFields lists the named ones only.
inline constexpr QmdField kFields[] = {
    HW_ONLY_SPAN_LIST_HEAD_INDEX,
    HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID,
    HW_ONLY_REQUIRE_SCHEDULING_PCAS,
    HW_ONLY_SKED_NEXT_QMD_POINTER,
    INNER_GET,
    INNER_OVERFLOW,
    INNER_PUT,
    INNER_STICKY_OVERFLOW,
    DEPENDENCE_COUNTER,
    QMD_GROUP_ID,
    ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST,
    QMD_TYPE,
    NUM_SUB_TASKS_PER_TASK,
    REQUIRE_SCHEDULING_PCAS,
    TPC_DISABLE_MASK_VALID,
    CIRCULAR_QUEUE_SIZE,
    HW_ONLY_DEPENDENCE_COUNTER,
    RESUME_SUB_TASK_ID,
    COMPLETED_SUB_TASK_MASK,
    GRID_WIDTH_RESUME,
    GRID_HEIGHT_RESUME,
    GRID_DEPTH_RESUME,
    RELEASE_ENABLE,
    RELEASE_STRUCTURE_SIZE,
    RELEASE_MEMBAR_TYPE,
    RELEASE_REDUCTION_ENABLE,
    RELEASE_REDUCTION_OP,
    RELEASE_REDUCTION_FORMAT,
    RELEASE_TRAP_TYPE,
    RELEASE_PAYLOAD64B,
    RELEASE_RESERVED_INFO,
    DEPENDENT_QMD0_ENABLE,
    DEPENDENT_QMD0_ACTION,
    DEPENDENT_QMD0_PREFETCH,
    SELF_COPY_ON_COMPLETION,
    DEMOTE_L2_EVICT_LAST,
    DISABLE_AUTO_INVALIDATE,
    DEPENDENT_QMD1_ENABLE,
    DEPENDENT_QMD1_ACTION,
    DEPENDENT_QMD1_PREFETCH,
    CORRELATION_ID_INTERNAL,
    CWD_MEMBAR_TASK_CHASING_ENABLE,
    SHARED_ALLOCATION_ENABLE,
    CORRELATION_ID,
    DEPENDENT_QMD0_POINTER,
    DEPENDENT_QMD1_POINTER,
    SASS_VERSION,
    API_VISIBLE_CALL_LIMIT,
    SAMPLER_INDEX,
    CONSTANT_BANK_PREFETCH_PRE_MAX_SIZE_SHIFTED8,
    QMD_MINOR_VERSION,
    QMD_MAJOR_VERSION,
    INVALIDATE_TEXTURE_HEADER_CACHE,
    INVALIDATE_TEXTURE_SAMPLER_CACHE,
    INVALIDATE_TEXTURE_DATA_CACHE,
    INVALIDATE_SHADER_DATA_CACHE,
    INVALIDATE_INSTRUCTION_CACHE,
    INVALIDATE_SHADER_CONSTANT_CACHE,
    LATCH_ACQUIRE_INVALIDATE_SHADER_DATA_CACHE,
    LATCH_ACQUIRE_INVALIDATE_TEXTURE_DATA_CACHE,
    RELEASE_SEMAPHORE0_ADDR_LOWER,
    RELEASE_SEMAPHORE0_ADDR_UPPER,
    RELEASE_SEMAPHORE0_PAYLOAD_LOWER,
    RELEASE_SEMAPHORE0_PAYLOAD_UPPER,
    CWD_REFERENCE_COUNT_DELTA_MINUS_ONE,
    CWD_REFERENCE_COUNT_ID,
    CWD_REFERENCE_COUNT_INCR_ENABLE,
    CWD_REFERENCE_COUNT_DECR_ENABLE,
    CWD_MEMBAR_TYPE,
    LATCH_ACQUIRE_INVALIDATE_CONSTANT_CACHE,
    CTA_LAUNCH_QUEUE,
    FREE_CTA_SLOTS_EMPTY_SM,
    SYNC_DOMAIN_ID,
    PRE_EXIT_AT_LAST_CTA_LAUNCH,
    ENABLE_PROGRAM_PRE_EXIT,
    ARRIVE_AT_LATCH_ID,
    WAIT_ON_LATCH_ID,
    OCCUPANCY_THRESHOLD_SHARED_MEM,
    OCCUPANCY_MAX_SHARED_MEM,
    ARRIVE_AT_LATCH_VALID,
    WAIT_ON_LATCH_VALID,
    LATCH_RELEASE_INVALIDATE_ENABLE,
    HOLD_CTA_LAUNCH_UNTIL_PARENT_LATCH_ACQUIRE_AND_CTA_COMPLETE,
    HOLD_MEMBAR_UNTIL_LATCH_ACQUIRE,
    PRIORITY_DEMOTE_UNTIL_LATCH_ACQUIRE,
    OCCUPANCY_THRESHOLD_WARP,
    OCCUPANCY_MAX_WARP,
    OCCUPANCY_THRESHOLD_REGISTER,
    OCCUPANCY_MAX_REGISTER,
    RELEASE_SEMAPHORE1_ADDR_LOWER,
    RELEASE_SEMAPHORE1_ADDR_UPPER,
    RELEASE_SEMAPHORE1_PAYLOAD_LOWER,
    RELEASE_SEMAPHORE1_PAYLOAD_UPPER,
    RELEASE_SEMAPHORE2_ADDR_LOWER,
    RELEASE_SEMAPHORE2_ADDR_UPPER,
    RELEASE_SEMAPHORE2_PAYLOAD_LOWER,
    RELEASE_SEMAPHORE2_PAYLOAD_UPPER,
    PROGRAM_ADDRESS_LOWER_SHIFTED4,
    PROGRAM_ADDRESS_UPPER_SHIFTED4,
    PROGRAM_PREFETCH_SIZE,
    PROGRAM_PREFETCH_TYPE,
    CTA_THREAD_DIMENSION0,
    CTA_THREAD_DIMENSION1,
    CTA_THREAD_DIMENSION2,
    REGISTER_COUNT,
    BARRIER_COUNT,
    ICC_PREFETCH_SIZE,
    SHARED_MEMORY_SIZE_SHIFTED7,
    MIN_SM_CONFIG_SHARED_MEM_SIZE,
    MAX_SM_CONFIG_SHARED_MEM_SIZE,
    TARGET_SM_CONFIG_SHARED_MEM_SIZE,
    SHARED_MEM_BARRIER_INIT_ENABLE,
    SHADER_LOCAL_MEMORY_LOW_SIZE_SHIFTED4,
    SHADER_LOCAL_MEMORY_HIGH_SIZE_SHIFTED4,
    VIRTUAL_RESOURCE_COUNT,
    GRID_WIDTH,
    GRID_HEIGHT,
    GRID_DEPTH,
    CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6,
    CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6,
    CONSTANT_BUFFER_SIZE_SHIFTED4,
    CONSTANT_BUFFER_VALID,
    CONSTANT_BUFFER_PREFETCH,
    CONSTANT_BUFFER_INVALIDATE,
    PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED,
    PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED,
    GPC_CGA_WIDTH,
    GPC_CGA_HEIGHT,
    GPC_CGA_DEPTH,
    LARGE_GPC_CGA_WIDTH_MINUS_ONE,
    LARGE_GPC_CGA_HEIGHT_MINUS_ONE,
    CGA_CTA_DISTRIBUTION_MODE,
    GPU_CGA_WIDTH,
    GPU_CGA_HEIGHT,
    GPU_CGA_DEPTH,
    DEBUG_ID_LOWER,
    DEBUG_ID_UPPER,
    TPC_DISABLE_MASK,
    INCOMPLETE_BOX_BASE_WIDTH_RESUME,
    INCOMPLETE_BOX_BASE_HEIGHT_RESUME,
    INCOMPLETE_BOX_BASE_DEPTH_RESUME,
    INCOMPLETE_BOX_OFFSET_WIDTH_RESUME,
    INCOMPLETE_BOX_OFFSET_HEIGHT_RESUME,
    QUEUE_ENTRIES_PER_CTA_LOG2,
    HW_ONLY_INNER_GET,
    HW_ONLY_INNER_PUT,
    OUTER_PUT,
    OUTER_OVERFLOW,
    OUTER_GET,
    OUTER_STICKY_OVERFLOW,
};
}  // namespace v05

}  // namespace rawgpu::autogen::nv::qmd

// QMD V04_00 (Hopper's native layout, 384 bytes; Hopper also accepts V03, see qmd.h).
//
// No Debian package ships these headers. This file is data WRITTEN BY HAND from NVIDIA's public
// documentation: open-gpu-doc (github.com/NVIDIA/open-gpu-doc) classes/compute/clcbc0qmd.h
// (NVCBC0_QMDV04_00_* MW(hi:lo) definitions), commit 5d957df1, in the conventions of qmd.h:
// {name, lo, width, stride, count}, bit positions absolute in the QMD. Counts follow from the
// layout: 3 release slots (the RELEASE_* sub-fields every 16 bits from 320), 2 dependent QMDs
// (every 5 bits from 368), 8 constant-buffer banks (every 4 bits from 416; addresses every 64
// bits from 1536); TPC_DISABLE_MASK lists its first word only. V04 constant-buffer addresses are
// `_SHIFTED6` (banks 64-byte aligned). tests/autogen/nv_data_test.cpp checks the layout.
#pragma once

#include "rawgpu/autogen/nv/qmd.h"

namespace rawgpu::autogen::nv::qmd::v04 {
inline constexpr uint32_t kBytes = 384;

inline constexpr QmdField DEPENDENCE_COUNTER{"DEPENDENCE_COUNTER", 0, 16, 0, 1};  // 15:0
inline constexpr QmdField QMD_GROUP_ID{"QMD_GROUP_ID", 16, 6, 0, 1};              // 21:16
inline constexpr QmdField ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST{
    "ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST", 22, 1, 0, 1};                                   // 22:22
inline constexpr QmdField QMD_TYPE{"QMD_TYPE", 23, 3, 0, 1};                                // 25:23
inline constexpr QmdField ARRIVE_AT_LATCH_VALID{"ARRIVE_AT_LATCH_VALID", 28, 1, 0, 1};      // 28:28
inline constexpr QmdField WAIT_ON_LATCH_VALID{"WAIT_ON_LATCH_VALID", 29, 1, 0, 1};          // 29:29
inline constexpr QmdField REQUIRE_SCHEDULING_PCAS{"REQUIRE_SCHEDULING_PCAS", 30, 1, 0, 1};  // 30:30
inline constexpr QmdField TPC_DISABLE_MASK_VALID{"TPC_DISABLE_MASK_VALID", 31, 1, 0, 1};    // 31:31
inline constexpr QmdField CIRCULAR_QUEUE_SIZE{"CIRCULAR_QUEUE_SIZE", 32, 25, 0, 1};         // 56:32
inline constexpr QmdField INNER_GET{"INNER_GET", 64, 31, 0, 1};                             // 94:64
inline constexpr QmdField INNER_OVERFLOW{"INNER_OVERFLOW", 95, 1, 0, 1};                    // 95:95
inline constexpr QmdField INNER_PUT{"INNER_PUT", 96, 31, 0, 1};                          // 126:96
inline constexpr QmdField INNER_STICKY_OVERFLOW{"INNER_STICKY_OVERFLOW", 127, 1, 0, 1};  // 127:127
inline constexpr QmdField HW_ONLY_INNER_GET{"HW_ONLY_INNER_GET", 160, 31, 0, 1};         // 190:160
inline constexpr QmdField HW_ONLY_INNER_PUT{"HW_ONLY_INNER_PUT", 192, 31, 0, 1};         // 222:192
inline constexpr QmdField HW_ONLY_SPAN_LIST_HEAD_INDEX{"HW_ONLY_SPAN_LIST_HEAD_INDEX", 224, 30, 0,
                                                       1};  // 253:224
inline constexpr QmdField HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID{"HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID",
                                                             254, 1, 0, 1};  // 254:254
inline constexpr QmdField HW_ONLY_SKED_NEXT_QMD_POINTER{"HW_ONLY_SKED_NEXT_QMD_POINTER", 256, 32, 0,
                                                        1};  // 287:256
inline constexpr QmdField HW_ONLY_DEPENDENCE_COUNTER{"HW_ONLY_DEPENDENCE_COUNTER", 288, 16, 0,
                                                     1};  // 303:288
inline constexpr QmdField HW_ONLY_REQUIRE_SCHEDULING_PCAS{"HW_ONLY_REQUIRE_SCHEDULING_PCAS", 304, 1,
                                                          0, 1};            // 304:304
inline constexpr QmdField RELEASE_ENABLE{"RELEASE_ENABLE", 320, 1, 16, 3};  // (320+16i):(320+16i)
inline constexpr QmdField RELEASE_STRUCTURE_SIZE{"RELEASE_STRUCTURE_SIZE", 321, 2, 16,
                                                 3};  // (322+16i):(321+16i)
inline constexpr QmdField RELEASE_MEMBAR_TYPE{"RELEASE_MEMBAR_TYPE", 323, 1, 16,
                                              3};  // (323+16i):(323+16i)
inline constexpr QmdField RELEASE_REDUCTION_ENABLE{"RELEASE_REDUCTION_ENABLE", 324, 1, 16,
                                                   3};  // (324+16i):(324+16i)
inline constexpr QmdField RELEASE_REDUCTION_OP{"RELEASE_REDUCTION_OP", 325, 3, 16,
                                               3};  // (327+16i):(325+16i)
inline constexpr QmdField RELEASE_REDUCTION_FORMAT{"RELEASE_REDUCTION_FORMAT", 328, 2, 16,
                                                   3};  // (329+16i):(328+16i)
inline constexpr QmdField RELEASE_TRAP_TYPE{"RELEASE_TRAP_TYPE", 330, 2, 16,
                                            3};  // (331+16i):(330+16i)
inline constexpr QmdField RELEASE_PAYLOAD64B{"RELEASE_PAYLOAD64B", 332, 1, 16,
                                             3};  // (332+16i):(332+16i)
inline constexpr QmdField RELEASE_RESERVED_INFO{"RELEASE_RESERVED_INFO", 333, 3, 16,
                                                3};  // (335+16i):(333+16i)
inline constexpr QmdField DEPENDENT_QMD_ENABLE{"DEPENDENT_QMD_ENABLE", 368, 1, 5,
                                               2};  // (368+5i):(368+5i)
inline constexpr QmdField DEPENDENT_QMD_ACTION{"DEPENDENT_QMD_ACTION", 369, 3, 5,
                                               2};  // (371+5i):(369+5i)
inline constexpr QmdField DEPENDENT_QMD_PREFETCH{"DEPENDENT_QMD_PREFETCH", 372, 1, 5,
                                                 2};  // (372+5i):(372+5i)
inline constexpr QmdField SELF_COPY_ON_COMPLETION{"SELF_COPY_ON_COMPLETION", 378, 1, 0,
                                                  1};                                  // 378:378
inline constexpr QmdField DEMOTE_L2_EVICT_LAST{"DEMOTE_L2_EVICT_LAST", 379, 1, 0, 1};  // 379:379
inline constexpr QmdField DISABLE_AUTO_INVALIDATE{"DISABLE_AUTO_INVALIDATE", 380, 1, 0,
                                                  1};  // 380:380
inline constexpr QmdField CORRELATION_ID_INTERNAL{"CORRELATION_ID_INTERNAL", 381, 1, 0,
                                                  1};  // 381:381
inline constexpr QmdField CWD_MEMBAR_TASK_CHASING_ENABLE{"CWD_MEMBAR_TASK_CHASING_ENABLE", 382, 1,
                                                         0, 1};             // 382:382
inline constexpr QmdField CORRELATION_ID{"CORRELATION_ID", 384, 32, 0, 1};  // 415:384
inline constexpr QmdField CONSTANT_BUFFER_VALID{"CONSTANT_BUFFER_VALID", 416, 1, 4,
                                                8};  // (416+4i):(416+4i)
inline constexpr QmdField CONSTANT_BUFFER_PREFETCH{"CONSTANT_BUFFER_PREFETCH", 417, 2, 4,
                                                   8};  // (418+4i):(417+4i)
inline constexpr QmdField CONSTANT_BUFFER_INVALIDATE{"CONSTANT_BUFFER_INVALIDATE", 419, 1, 4,
                                                     8};  // (419+4i):(419+4i)
inline constexpr QmdField DEPENDENT_QMD0_POINTER{"DEPENDENT_QMD0_POINTER", 448, 32, 0,
                                                 1};  // 479:448
inline constexpr QmdField DEPENDENT_QMD1_POINTER{"DEPENDENT_QMD1_POINTER", 480, 32, 0,
                                                 1};  // 511:480
inline constexpr QmdField SHADER_LOCAL_MEMORY_LOW_SIZE{"SHADER_LOCAL_MEMORY_LOW_SIZE", 512, 24, 0,
                                                       1};             // 535:512
inline constexpr QmdField SASS_VERSION{"SASS_VERSION", 536, 8, 0, 1};  // 543:536
inline constexpr QmdField SHADER_LOCAL_MEMORY_HIGH_SIZE{"SHADER_LOCAL_MEMORY_HIGH_SIZE", 544, 24, 0,
                                                        1};  // 567:544
inline constexpr QmdField API_VISIBLE_CALL_LIMIT{"API_VISIBLE_CALL_LIMIT", 568, 1, 0,
                                                 1};                     // 568:568
inline constexpr QmdField SAMPLER_INDEX{"SAMPLER_INDEX", 569, 1, 0, 1};  // 569:569
inline constexpr QmdField CONSTANT_BUFFER_PREFETCH_PRE_MAX_SIZE_SHIFTED8{
    "CONSTANT_BUFFER_PREFETCH_PRE_MAX_SIZE_SHIFTED8", 570, 6, 0, 1};                // 575:570
inline constexpr QmdField QMD_MINOR_VERSION{"QMD_MINOR_VERSION", 576, 4, 0, 1};     // 579:576
inline constexpr QmdField QMD_MAJOR_VERSION{"QMD_MAJOR_VERSION", 580, 4, 0, 1};     // 583:580
inline constexpr QmdField SHARED_MEMORY_SIZE{"SHARED_MEMORY_SIZE", 584, 18, 0, 1};  // 601:584
inline constexpr QmdField INVALIDATE_TEXTURE_HEADER_CACHE{"INVALIDATE_TEXTURE_HEADER_CACHE", 602, 1,
                                                          0, 1};  // 602:602
inline constexpr QmdField INVALIDATE_TEXTURE_SAMPLER_CACHE{"INVALIDATE_TEXTURE_SAMPLER_CACHE", 603,
                                                           1, 0, 1};  // 603:603
inline constexpr QmdField INVALIDATE_TEXTURE_DATA_CACHE{"INVALIDATE_TEXTURE_DATA_CACHE", 604, 1, 0,
                                                        1};  // 604:604
inline constexpr QmdField INVALIDATE_SHADER_DATA_CACHE{"INVALIDATE_SHADER_DATA_CACHE", 605, 1, 0,
                                                       1};  // 605:605
inline constexpr QmdField INVALIDATE_INSTRUCTION_CACHE{"INVALIDATE_INSTRUCTION_CACHE", 606, 1, 0,
                                                       1};  // 606:606
inline constexpr QmdField INVALIDATE_SHADER_CONSTANT_CACHE{"INVALIDATE_SHADER_CONSTANT_CACHE", 607,
                                                           1, 0, 1};  // 607:607
inline constexpr QmdField MIN_SM_CONFIG_SHARED_MEM_SIZE{"MIN_SM_CONFIG_SHARED_MEM_SIZE", 608, 6, 0,
                                                        1};  // 613:608
inline constexpr QmdField MAX_SM_CONFIG_SHARED_MEM_SIZE{"MAX_SM_CONFIG_SHARED_MEM_SIZE", 614, 6, 0,
                                                        1};  // 619:614
inline constexpr QmdField TARGET_SM_CONFIG_SHARED_MEM_SIZE{"TARGET_SM_CONFIG_SHARED_MEM_SIZE", 620,
                                                           6, 0, 1};  // 625:620
inline constexpr QmdField SHARED_ALLOCATION_ENABLE{"SHARED_ALLOCATION_ENABLE", 626, 1, 0,
                                                   1};  // 626:626
inline constexpr QmdField RELEASE_SEMAPHORE0_ADDR_LOWER{"RELEASE_SEMAPHORE0_ADDR_LOWER", 640, 32, 0,
                                                        1};  // 671:640
inline constexpr QmdField RELEASE_SEMAPHORE0_ADDR_UPPER{"RELEASE_SEMAPHORE0_ADDR_UPPER", 672, 25, 0,
                                                        1};  // 696:672
inline constexpr QmdField RELEASE_SEMAPHORE0_PAYLOAD_LOWER{"RELEASE_SEMAPHORE0_PAYLOAD_LOWER", 704,
                                                           32, 0, 1};  // 735:704
inline constexpr QmdField RELEASE_SEMAPHORE0_PAYLOAD_UPPER{"RELEASE_SEMAPHORE0_PAYLOAD_UPPER", 736,
                                                           32, 0, 1};  // 767:736
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
inline constexpr QmdField GRID_WIDTH{"GRID_WIDTH", 1024, 32, 0, 1};    // 1055:1024
inline constexpr QmdField GRID_HEIGHT{"GRID_HEIGHT", 1056, 16, 0, 1};  // 1071:1056
inline constexpr QmdField GRID_DEPTH{"GRID_DEPTH", 1088, 16, 0, 1};    // 1103:1088
inline constexpr QmdField CWD_REFERENCE_COUNT_DELTA_MINUS_ONE{"CWD_REFERENCE_COUNT_DELTA_MINUS_ONE",
                                                              1120, 8, 0, 1};  // 1127:1120
inline constexpr QmdField CWD_REFERENCE_COUNT_ID{"CWD_REFERENCE_COUNT_ID", 1128, 6, 0,
                                                 1};  // 1133:1128
inline constexpr QmdField CWD_REFERENCE_COUNT_INCR_ENABLE{"CWD_REFERENCE_COUNT_INCR_ENABLE", 1134,
                                                          1, 0, 1};  // 1134:1134
inline constexpr QmdField CWD_REFERENCE_COUNT_DECR_ENABLE{"CWD_REFERENCE_COUNT_DECR_ENABLE", 1135,
                                                          1, 0, 1};           // 1135:1135
inline constexpr QmdField CWD_MEMBAR_TYPE{"CWD_MEMBAR_TYPE", 1136, 2, 0, 1};  // 1137:1136
inline constexpr QmdField SEQUENTIALLY_RUN_CTAS{"SEQUENTIALLY_RUN_CTAS", 1138, 1, 0,
                                                1};                             // 1138:1138
inline constexpr QmdField CTA_LAUNCH_QUEUE{"CTA_LAUNCH_QUEUE", 1139, 1, 0, 1};  // 1139:1139
inline constexpr QmdField FREE_CTA_SLOTS_EMPTY_SM{"FREE_CTA_SLOTS_EMPTY_SM", 1140, 8, 0,
                                                  1};                       // 1147:1140
inline constexpr QmdField SYNC_DOMAIN_ID{"SYNC_DOMAIN_ID", 1148, 2, 0, 1};  // 1149:1148
inline constexpr QmdField PRE_EXIT_AT_LAST_CTA_LAUNCH{"PRE_EXIT_AT_LAST_CTA_LAUNCH", 1150, 1, 0,
                                                      1};  // 1150:1150
inline constexpr QmdField ENABLE_PROGRAM_PRE_EXIT{"ENABLE_PROGRAM_PRE_EXIT", 1151, 1, 0,
                                                  1};  // 1151:1151
inline constexpr QmdField CTA_THREAD_DIMENSION0{"CTA_THREAD_DIMENSION0", 1152, 16, 0,
                                                1};  // 1167:1152
inline constexpr QmdField CTA_THREAD_DIMENSION1{"CTA_THREAD_DIMENSION1", 1168, 16, 0,
                                                1};  // 1183:1168
inline constexpr QmdField CTA_THREAD_DIMENSION2{"CTA_THREAD_DIMENSION2", 1184, 16, 0,
                                                1};                         // 1199:1184
inline constexpr QmdField REGISTER_COUNT{"REGISTER_COUNT", 1200, 9, 0, 1};  // 1208:1200
inline constexpr QmdField BARRIER_COUNT{"BARRIER_COUNT", 1211, 5, 0, 1};    // 1215:1211
inline constexpr QmdField PROGRAM_ADDRESS_LOWER{"PROGRAM_ADDRESS_LOWER", 1216, 32, 0,
                                                1};  // 1247:1216
inline constexpr QmdField PROGRAM_ADDRESS_UPPER{"PROGRAM_ADDRESS_UPPER", 1248, 25, 0,
                                                1};  // 1272:1248
inline constexpr QmdField OCCUPANCY_THRESHOLD_WARP{"OCCUPANCY_THRESHOLD_WARP", 1280, 8, 0,
                                                   1};                              // 1287:1280
inline constexpr QmdField OCCUPANCY_MAX_WARP{"OCCUPANCY_MAX_WARP", 1288, 8, 0, 1};  // 1295:1288
inline constexpr QmdField OCCUPANCY_THRESHOLD_REGISTER{"OCCUPANCY_THRESHOLD_REGISTER", 1296, 8, 0,
                                                       1};  // 1303:1296
inline constexpr QmdField OCCUPANCY_MAX_REGISTER{"OCCUPANCY_MAX_REGISTER", 1304, 8, 0,
                                                 1};  // 1311:1304
inline constexpr QmdField OCCUPANCY_THRESHOLD_SHARED_MEM{"OCCUPANCY_THRESHOLD_SHARED_MEM", 1312, 8,
                                                         0, 1};  // 1319:1312
inline constexpr QmdField OCCUPANCY_MAX_SHARED_MEM{"OCCUPANCY_MAX_SHARED_MEM", 1320, 8, 0,
                                                   1};  // 1327:1320
inline constexpr QmdField PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED{"PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED",
                                                              1344, 32, 0, 1};  // 1375:1344
inline constexpr QmdField PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED{"PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED",
                                                              1376, 17, 0, 1};  // 1392:1376
inline constexpr QmdField PROGRAM_PREFETCH_SIZE{"PROGRAM_PREFETCH_SIZE", 1393, 9, 0,
                                                1};  // 1401:1393
inline constexpr QmdField PROGRAM_PREFETCH_TYPE{"PROGRAM_PREFETCH_TYPE", 1402, 2, 0,
                                                1};  // 1403:1402
inline constexpr QmdField LATCH_ACQUIRE_INVALIDATE_SHADER_DATA_CACHE{
    "LATCH_ACQUIRE_INVALIDATE_SHADER_DATA_CACHE", 1406, 1, 0, 1};  // 1406:1406
inline constexpr QmdField LATCH_ACQUIRE_INVALIDATE_TEXTURE_DATA_CACHE{
    "LATCH_ACQUIRE_INVALIDATE_TEXTURE_DATA_CACHE", 1407, 1, 0, 1};                   // 1407:1407
inline constexpr QmdField GRID_WIDTH_RESUME{"GRID_WIDTH_RESUME", 1408, 32, 0, 1};    // 1439:1408
inline constexpr QmdField GRID_HEIGHT_RESUME{"GRID_HEIGHT_RESUME", 1440, 16, 0, 1};  // 1455:1440
inline constexpr QmdField GRID_DEPTH_RESUME{"GRID_DEPTH_RESUME", 1456, 16, 0, 1};    // 1471:1456
inline constexpr QmdField ARRIVE_AT_LATCH_ID{"ARRIVE_AT_LATCH_ID", 1472, 32, 0, 1};  // 1503:1472
inline constexpr QmdField WAIT_ON_LATCH_ID{"WAIT_ON_LATCH_ID", 1504, 32, 0, 1};      // 1535:1504
inline constexpr QmdField CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6{
    "CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6", 1536, 32, 64, 8};  // (1567+64i):(1536+64i)
inline constexpr QmdField CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6{
    "CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6", 1568, 19, 64, 8};  // (1586+64i):(1568+64i)
inline constexpr QmdField CONSTANT_BUFFER_SIZE_SHIFTED4{"CONSTANT_BUFFER_SIZE_SHIFTED4", 1587, 13,
                                                        64, 8};  // (1599+64i):(1587+64i)
inline constexpr QmdField CIRCULAR_QUEUE_ADDR_LOWER{"CIRCULAR_QUEUE_ADDR_LOWER", 2048, 32, 0,
                                                    1};  // 2079:2048
inline constexpr QmdField CIRCULAR_QUEUE_ADDR_UPPER{"CIRCULAR_QUEUE_ADDR_UPPER", 2080, 8, 0,
                                                    1};  // 2087:2080
inline constexpr QmdField CIRCULAR_QUEUE_ENTRY_SIZE{"CIRCULAR_QUEUE_ENTRY_SIZE", 2112, 16, 0,
                                                    1};  // 2127:2112
inline constexpr QmdField COALESCE_WAITING_PERIOD{"COALESCE_WAITING_PERIOD", 2128, 8, 0,
                                                  1};  // 2135:2128
inline constexpr QmdField QUEUE_ENTRIES_PER_CTA_LOG2{"QUEUE_ENTRIES_PER_CTA_LOG2", 2136, 5, 0,
                                                     1};                    // 2140:2136
inline constexpr QmdField GPC_CGA_WIDTH{"GPC_CGA_WIDTH", 2144, 6, 0, 1};    // 2149:2144
inline constexpr QmdField GPC_CGA_HEIGHT{"GPC_CGA_HEIGHT", 2152, 6, 0, 1};  // 2157:2152
inline constexpr QmdField GPC_CGA_DEPTH{"GPC_CGA_DEPTH", 2160, 6, 0, 1};    // 2165:2160
inline constexpr QmdField CGA_CTA_DISTRIBUTION_MODE{"CGA_CTA_DISTRIBUTION_MODE", 2207, 1, 0,
                                                    1};                      // 2207:2207
inline constexpr QmdField GPU_CGA_WIDTH{"GPU_CGA_WIDTH", 2208, 16, 0, 1};    // 2223:2208
inline constexpr QmdField GPU_CGA_HEIGHT{"GPU_CGA_HEIGHT", 2224, 16, 0, 1};  // 2239:2224
inline constexpr QmdField GPU_CGA_DEPTH{"GPU_CGA_DEPTH", 2240, 16, 0, 1};    // 2255:2240
inline constexpr QmdField DEBUG_ID_LOWER{"DEBUG_ID_LOWER", 2368, 32, 0, 1};  // 2399:2368
inline constexpr QmdField DEBUG_ID_UPPER{"DEBUG_ID_UPPER", 2400, 32, 0, 1};  // 2431:2400
inline constexpr QmdField TPC_DISABLE_MASK{"TPC_DISABLE_MASK", 2432, 32, 32,
                                           1};                              // (2463+32i):(2432+32i)
inline constexpr QmdField OUTER_PUT{"OUTER_PUT", 3008, 31, 0, 1};           // 3038:3008
inline constexpr QmdField OUTER_OVERFLOW{"OUTER_OVERFLOW", 3039, 1, 0, 1};  // 3039:3039
inline constexpr QmdField OUTER_GET{"OUTER_GET", 3040, 31, 0, 1};           // 3070:3040
inline constexpr QmdField OUTER_STICKY_OVERFLOW{"OUTER_STICKY_OVERFLOW", 3071, 1, 0,
                                                1};  // 3071:3071

inline constexpr uint32_t QMD_TYPE_QUEUE = 0x0;
inline constexpr uint32_t QMD_TYPE_GRID_NULL = 0x1;
inline constexpr uint32_t QMD_TYPE_GRID_CTA = 0x2;
inline constexpr uint32_t QMD_TYPE_GRID_GPC_CGA = 0x3;
inline constexpr uint32_t QMD_TYPE_GRID_GPU_CGA = 0x4;
inline constexpr uint32_t QMD_TYPE_GRID_GPU_GPC_CGA = 0x5;
inline constexpr uint32_t RELEASE_STRUCTURE_SIZE_SEMAPHORE_FOUR_WORDS = 0x0;
inline constexpr uint32_t RELEASE_STRUCTURE_SIZE_SEMAPHORE_ONE_WORD = 0x1;
inline constexpr uint32_t RELEASE_STRUCTURE_SIZE_SEMAPHORE_TWO_WORDS = 0x2;
inline constexpr uint32_t DEPENDENT_QMD_ACTION_QMD_INCREMENT_PUT = 0x0;
inline constexpr uint32_t DEPENDENT_QMD_ACTION_QMD_SCHEDULE = 0x1;
inline constexpr uint32_t DEPENDENT_QMD_ACTION_QMD_INVALIDATE_COPY_SCHEDULE = 0x3;
inline constexpr uint32_t DEPENDENT_QMD_ACTION_QMD_DECREMENT_DEPENDENCE = 0x4;
inline constexpr uint32_t CWD_MEMBAR_TYPE_L1_NONE = 0x0;
inline constexpr uint32_t CWD_MEMBAR_TYPE_L1_SYSMEMBAR = 0x1;
inline constexpr uint32_t CWD_MEMBAR_TYPE_L1_MEMBAR = 0x3;
inline constexpr uint32_t API_VISIBLE_CALL_LIMIT__32 = 0x0;
inline constexpr uint32_t API_VISIBLE_CALL_LIMIT_NO_CHECK = 0x1;
inline constexpr uint32_t SAMPLER_INDEX_INDEPENDENTLY = 0x0;
inline constexpr uint32_t SAMPLER_INDEX_VIA_HEADER_INDEX = 0x1;
inline constexpr uint32_t PROGRAM_PREFETCH_TYPE_PREFETCH_LAUNCH = 0x0;
inline constexpr uint32_t PROGRAM_PREFETCH_TYPE_PREFTECH_POST = 0x1;
inline constexpr uint32_t CGA_CTA_DISTRIBUTION_MODE_LOAD_BALANCING = 0x0;
inline constexpr uint32_t CGA_CTA_DISTRIBUTION_MODE_MULTI_CAST = 0x1;

inline constexpr QmdField kFields[] = {
    DEPENDENCE_COUNTER,
    QMD_GROUP_ID,
    ADD_TO_HEAD_OF_QMD_GROUP_LINKED_LIST,
    QMD_TYPE,
    ARRIVE_AT_LATCH_VALID,
    WAIT_ON_LATCH_VALID,
    REQUIRE_SCHEDULING_PCAS,
    TPC_DISABLE_MASK_VALID,
    CIRCULAR_QUEUE_SIZE,
    INNER_GET,
    INNER_OVERFLOW,
    INNER_PUT,
    INNER_STICKY_OVERFLOW,
    HW_ONLY_INNER_GET,
    HW_ONLY_INNER_PUT,
    HW_ONLY_SPAN_LIST_HEAD_INDEX,
    HW_ONLY_SPAN_LIST_HEAD_INDEX_VALID,
    HW_ONLY_SKED_NEXT_QMD_POINTER,
    HW_ONLY_DEPENDENCE_COUNTER,
    HW_ONLY_REQUIRE_SCHEDULING_PCAS,
    RELEASE_ENABLE,
    RELEASE_STRUCTURE_SIZE,
    RELEASE_MEMBAR_TYPE,
    RELEASE_REDUCTION_ENABLE,
    RELEASE_REDUCTION_OP,
    RELEASE_REDUCTION_FORMAT,
    RELEASE_TRAP_TYPE,
    RELEASE_PAYLOAD64B,
    RELEASE_RESERVED_INFO,
    DEPENDENT_QMD_ENABLE,
    DEPENDENT_QMD_ACTION,
    DEPENDENT_QMD_PREFETCH,
    SELF_COPY_ON_COMPLETION,
    DEMOTE_L2_EVICT_LAST,
    DISABLE_AUTO_INVALIDATE,
    CORRELATION_ID_INTERNAL,
    CWD_MEMBAR_TASK_CHASING_ENABLE,
    CORRELATION_ID,
    CONSTANT_BUFFER_VALID,
    CONSTANT_BUFFER_PREFETCH,
    CONSTANT_BUFFER_INVALIDATE,
    DEPENDENT_QMD0_POINTER,
    DEPENDENT_QMD1_POINTER,
    SHADER_LOCAL_MEMORY_LOW_SIZE,
    SASS_VERSION,
    SHADER_LOCAL_MEMORY_HIGH_SIZE,
    API_VISIBLE_CALL_LIMIT,
    SAMPLER_INDEX,
    CONSTANT_BUFFER_PREFETCH_PRE_MAX_SIZE_SHIFTED8,
    QMD_MINOR_VERSION,
    QMD_MAJOR_VERSION,
    SHARED_MEMORY_SIZE,
    INVALIDATE_TEXTURE_HEADER_CACHE,
    INVALIDATE_TEXTURE_SAMPLER_CACHE,
    INVALIDATE_TEXTURE_DATA_CACHE,
    INVALIDATE_SHADER_DATA_CACHE,
    INVALIDATE_INSTRUCTION_CACHE,
    INVALIDATE_SHADER_CONSTANT_CACHE,
    MIN_SM_CONFIG_SHARED_MEM_SIZE,
    MAX_SM_CONFIG_SHARED_MEM_SIZE,
    TARGET_SM_CONFIG_SHARED_MEM_SIZE,
    SHARED_ALLOCATION_ENABLE,
    RELEASE_SEMAPHORE0_ADDR_LOWER,
    RELEASE_SEMAPHORE0_ADDR_UPPER,
    RELEASE_SEMAPHORE0_PAYLOAD_LOWER,
    RELEASE_SEMAPHORE0_PAYLOAD_UPPER,
    RELEASE_SEMAPHORE1_ADDR_LOWER,
    RELEASE_SEMAPHORE1_ADDR_UPPER,
    RELEASE_SEMAPHORE1_PAYLOAD_LOWER,
    RELEASE_SEMAPHORE1_PAYLOAD_UPPER,
    RELEASE_SEMAPHORE2_ADDR_LOWER,
    RELEASE_SEMAPHORE2_ADDR_UPPER,
    RELEASE_SEMAPHORE2_PAYLOAD_LOWER,
    RELEASE_SEMAPHORE2_PAYLOAD_UPPER,
    GRID_WIDTH,
    GRID_HEIGHT,
    GRID_DEPTH,
    CWD_REFERENCE_COUNT_DELTA_MINUS_ONE,
    CWD_REFERENCE_COUNT_ID,
    CWD_REFERENCE_COUNT_INCR_ENABLE,
    CWD_REFERENCE_COUNT_DECR_ENABLE,
    CWD_MEMBAR_TYPE,
    SEQUENTIALLY_RUN_CTAS,
    CTA_LAUNCH_QUEUE,
    FREE_CTA_SLOTS_EMPTY_SM,
    SYNC_DOMAIN_ID,
    PRE_EXIT_AT_LAST_CTA_LAUNCH,
    ENABLE_PROGRAM_PRE_EXIT,
    CTA_THREAD_DIMENSION0,
    CTA_THREAD_DIMENSION1,
    CTA_THREAD_DIMENSION2,
    REGISTER_COUNT,
    BARRIER_COUNT,
    PROGRAM_ADDRESS_LOWER,
    PROGRAM_ADDRESS_UPPER,
    OCCUPANCY_THRESHOLD_WARP,
    OCCUPANCY_MAX_WARP,
    OCCUPANCY_THRESHOLD_REGISTER,
    OCCUPANCY_MAX_REGISTER,
    OCCUPANCY_THRESHOLD_SHARED_MEM,
    OCCUPANCY_MAX_SHARED_MEM,
    PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED,
    PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED,
    PROGRAM_PREFETCH_SIZE,
    PROGRAM_PREFETCH_TYPE,
    LATCH_ACQUIRE_INVALIDATE_SHADER_DATA_CACHE,
    LATCH_ACQUIRE_INVALIDATE_TEXTURE_DATA_CACHE,
    GRID_WIDTH_RESUME,
    GRID_HEIGHT_RESUME,
    GRID_DEPTH_RESUME,
    ARRIVE_AT_LATCH_ID,
    WAIT_ON_LATCH_ID,
    CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6,
    CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6,
    CONSTANT_BUFFER_SIZE_SHIFTED4,
    CIRCULAR_QUEUE_ADDR_LOWER,
    CIRCULAR_QUEUE_ADDR_UPPER,
    CIRCULAR_QUEUE_ENTRY_SIZE,
    COALESCE_WAITING_PERIOD,
    QUEUE_ENTRIES_PER_CTA_LOG2,
    GPC_CGA_WIDTH,
    GPC_CGA_HEIGHT,
    GPC_CGA_DEPTH,
    CGA_CTA_DISTRIBUTION_MODE,
    GPU_CGA_WIDTH,
    GPU_CGA_HEIGHT,
    GPU_CGA_DEPTH,
    DEBUG_ID_LOWER,
    DEBUG_ID_UPPER,
    TPC_DISABLE_MASK,
    OUTER_PUT,
    OUTER_OVERFLOW,
    OUTER_GET,
    OUTER_STICKY_OVERFLOW,
};
}  // namespace rawgpu::autogen::nv::qmd::v04

// Internal: the mnemonics the emulator has semantics for (normalised: no _e32/_e64 suffix,
// VOPD's v_dual_ prefix written v_). One X() per operation; gfx1201 renames are separate ids
// where their semantics differ and aliases (ALIAS) where they do not.
#pragma once

// clang-format off

#define RDNA_OPS(X)                                                                                                                                                  \
  /* SOP2 */                                                                                                                                                         \
  X(s_add_u32)                                                                                                                                                       \
  X(s_sub_u32)                                                                                                                                                       \
  X(s_add_i32)                                                                                                                                                       \
  X(s_sub_i32)                                                                                                                                                       \
  X(s_addc_u32)                                                                                                                                                      \
  X(s_subb_u32)                                                                                                                                                      \
  X(s_lshl_b32)                                                                                                                                                      \
  X(s_lshl_b64)                                                                                                                                                      \
  X(s_lshr_b32) X(s_lshr_b64) X(s_ashr_i32) X(s_ashr_i64) X(s_lshl1_add_u32) X(s_lshl2_add_u32)                                                                      \
      X(s_lshl3_add_u32) X(s_lshl4_add_u32) X(s_min_i32) X(s_min_u32) X(s_max_i32) X(s_max_u32)                                                                      \
          X(s_and_b32) X(s_and_b64) X(s_or_b32) X(s_or_b64) X(s_xor_b32) X(s_xor_b64)                                                                                \
              X(s_nand_b32) X(s_nor_b32) X(s_xnor_b32) X(s_and_not1_b32) X(s_and_not1_b64)                                                                           \
                  X(s_or_not1_b32) X(s_or_not1_b64) X(s_bfe_u32) X(s_bfe_i32) X(s_bfe_u64) X(s_bfe_i64) X(s_brev_b64) X(s_ctz_i32_b64) X(s_clz_i32_u64) X(s_cls_i32) X(s_bfm_b32)                                                                           \
                      X(s_mul_i32) X(s_mul_hi_u32) X(s_mul_hi_i32) X(s_cselect_b32)                                                                                  \
                          X(s_cselect_b64) X(s_pack_ll_b32_b16) X(s_pack_lh_b32_b16)                                                                                 \
                              X(s_pack_hh_b32_b16) X(s_pack_hl_b32_b16) X(s_absdiff_i32)                                                                             \
                                  X(s_add_nc_u64) X(s_sub_nc_u64) X(s_mul_u64) X(s_add_f32)                                                                          \
                                      X(s_sub_f32) X(s_mul_f32) X(s_fmac_f32) X(s_fmamk_f32)                                                                         \
                                          X(s_fmaak_f32) X(s_min_num_f32) X(s_max_num_f32) /* SOPK */                                                                                                  \
      X(s_movk_i32) X(s_cmovk_i32) X(s_addk_i32) X(s_mulk_i32) X(s_version) X(s_getreg_b32)                                                                          \
          X(s_setreg_b32) X(s_setreg_imm32_b32) X(s_cmpk_eq_i32) X(s_cmpk_lg_i32) X(s_cmpk_gt_i32)                                                                   \
              X(s_cmpk_ge_i32) X(s_cmpk_lt_i32) X(s_cmpk_le_i32) X(s_cmpk_eq_u32) X(s_cmpk_lg_u32)                                                                   \
                  X(s_cmpk_gt_u32) X(s_cmpk_ge_u32) X(s_cmpk_lt_u32) X(s_cmpk_le_u32)                                                                                \
                      X(s_waitcnt_vscnt) X(s_waitcnt_vmcnt) X(s_waitcnt_expcnt)                                                                                      \
                          X(s_waitcnt_lgkmcnt) /* SOP1 */                                                                                                            \
      X(s_mov_b32) X(s_mov_b64) X(s_cmov_b32) X(s_cmov_b64) X(s_not_b32) X(s_not_b64)                                                                                \
          X(s_brev_b32) X(s_ctz_i32_b32) X(s_clz_i32_u32) X(s_bcnt1_i32_b32) X(s_bcnt1_i32_b64)                                                                      \
              X(s_sext_i32_i8) X(s_sext_i32_i16) X(s_bitset0_b32) X(s_bitset1_b32) X(s_abs_i32)                                                                      \
                  X(s_and_saveexec_b32) X(s_or_saveexec_b32) X(s_xor_saveexec_b32)                                                                                   \
                      X(s_and_not1_saveexec_b32) X(s_or_not1_saveexec_b32)                                                                                           \
                          X(s_and_not0_saveexec_b32) X(s_getpc_b64) X(s_setpc_b64) X(s_swappc_b64)                                                                   \
                              X(s_cvt_f32_i32) X(s_cvt_f32_u32) X(s_cvt_i32_f32) X(s_cvt_u32_f32)                                                                    \
                                  X(s_trunc_f32) X(s_floor_f32) X(s_ceil_f32) /* SOPC */                                                                             \
      X(s_cmp_eq_i32) X(s_cmp_lg_i32) X(s_cmp_gt_i32) X(s_cmp_ge_i32) X(s_cmp_lt_i32)                                                                                \
          X(s_cmp_le_i32) X(s_cmp_eq_u32) X(s_cmp_lg_u32) X(s_cmp_gt_u32) X(s_cmp_ge_u32)                                                                            \
              X(s_cmp_lt_u32) X(s_cmp_le_u32) X(s_cmp_eq_u64) X(s_cmp_lg_u64) X(s_bitcmp0_b32)                                                                       \
                  X(s_bitcmp1_b32) /* SOPP */                                                                                                                        \
      X(s_nop) X(s_clause) X(s_delay_alu) X(s_waitcnt) X(s_waitcnt_depctr) X(s_endpgm) X(s_branch)                                                                   \
          X(s_cbranch_scc0) X(s_cbranch_scc1) X(s_cbranch_vccz) X(s_cbranch_vccnz)                                                                                   \
              X(s_cbranch_execz) X(s_cbranch_execnz) X(s_barrier) X(s_sendmsg) X(s_setprio)                                                                          \
                  X(s_sleep) X(s_code_end) X(s_set_inst_prefetch_distance) X(s_round_mode)                                                                           \
                      X(s_denorm_mode) X(s_icache_inv) X(s_wait_alu) X(s_wait_idle)                                                                                  \
                          X(s_wait_loadcnt) X(s_wait_storecnt) X(s_wait_dscnt) X(s_wait_kmcnt)                                                                       \
                              X(s_wait_expcnt) X(s_wait_loadcnt_dscnt) X(s_wait_storecnt_dscnt)                                                                      \
                                  X(s_barrier_signal) X(s_barrier_signal_isfirst) X(s_barrier_wait) /* SMEM */                                                       \
      X(s_load_b32) X(s_load_b64) X(s_load_b96) X(s_load_b128) X(s_load_b256) X(s_load_b512) X(s_load_i8) X(s_load_u8) X(s_load_i16) X(s_load_u16)                                                                         \
          X(s_dcache_inv) X(s_gl1_inv) /* VALU integer */                                                                                                            \
      X(v_nop) X(v_mov_b32) X(v_readfirstlane_b32) X(v_readlane_b32) X(v_writelane_b32) X(                                                                           \
          v_add_nc_u32) X(v_sub_nc_u32) X(v_subrev_nc_u32) X(v_add3_u32) X(v_add_co_u32)                                                                             \
          X(v_sub_co_u32) X(v_subrev_co_u32) X(v_add_co_ci_u32) X(v_sub_co_ci_u32) X(                                                                                \
              v_subrev_co_ci_u32) X(v_mul_lo_u32) X(v_mul_hi_u32) X(v_mul_hi_i32) X(v_mul_u32_u24)                                                                   \
              X(v_mul_i32_i24) X(v_mul_hi_u32_u24) X(v_mad_u32_u24) X(v_mad_i32_i24) X(                                                                              \
                  v_mad_u64_u32) X(v_mad_i64_i32) X(v_mad_co_u64_u32) X(v_mad_co_i64_i32)                                                                            \
                  X(v_and_b32) X(v_or_b32) X(v_xor_b32) X(v_not_b32) X(v_xnor_b32) X(                                                                                \
                      v_lshl_or_b32) X(v_and_or_b32) X(v_or3_b32) X(v_xor3_b32) X(v_lshl_add_u32)                                                                    \
                      X(v_add_lshl_u32) X(v_lshlrev_b32) X(v_lshrrev_b32) X(v_ashrrev_i32) X(                                                                        \
                          v_lshlrev_b64) X(v_lshrrev_b64) X(v_ashrrev_i64) X(v_bfe_u32)                                                                              \
                          X(v_bfe_i32) X(v_bfi_b32) X(v_bfrev_b32) X(v_alignbit_b32) X(                                                                              \
                              v_min_i32) X(v_max_i32) X(v_min_u32) X(v_max_u32) X(v_cndmask_b32)                                                                     \
                              X(v_mbcnt_lo_u32_b32)                                                                                                                  \
                                  X(v_mbcnt_hi_u32_b32) X(v_cvt_f32_ubyte0) X(v_cvt_f32_ubyte1) X(                                                                   \
                                      v_cvt_f32_ubyte2) X(v_cvt_f32_ubyte3)                                                                                          \
                                      X(v_max3_i32) X(v_min3_i32)                                                                                                    \
                                          X(v_max3_u32) X(v_min3_u32)                                                                                                \
                                              X(v_med3_i32) X(v_med3_u32)                                                                                            \
                                                  X(v_perm_b32) X(v_ffbh_u32)                                                                                        \
                                                      X(v_ffbl_b32) X(v_cls_i32) X(v_clz_i32_u32)                                                                    \
                                                          X(v_ctz_i32_b32) X(v_bcnt_u32_b32) X(                                                                      \
                                                              v_add_nc_u16) X(v_sub_nc_u16)                                                                          \
                                                              X(v_mul_lo_u16) /* VALU float */                                                                       \
      X(v_add_f32) X(v_sub_f32) X(v_subrev_f32) X(v_mul_f32) X(v_fma_f32) X(v_fmac_f32) X(                                                                           \
          v_fmamk_f32) X(v_fmaak_f32) X(v_max_f32) X(v_min_f32) X(v_max_num_f32) X(v_min_num_f32)                                                                    \
          X(v_maximum_f32) X(v_minimum_f32) X(v_max3_f32) X(v_min3_f32) X(v_med3_f32) X(                                                                             \
              v_ldexp_f32) X(v_frexp_mant_f32) X(v_frexp_exp_i32_f32) X(v_rcp_f32)                                                                                   \
              X(v_rcp_iflag_f32) X(v_rsq_f32) X(v_sqrt_f32) X(v_exp_f32) X(v_log_f32) X(v_sin_f32)                                                                   \
                  X(v_cos_f32) X(v_trunc_f32) X(v_floor_f32) X(v_ceil_f32) X(v_rndne_f32)                                                                            \
                      X(v_fract_f32) X(v_div_scale_f32) X(v_div_fmas_f32) X(v_div_fixup_f32)                                                                         \
                          X(v_cvt_f32_u32) X(v_cvt_f32_i32) X(v_cvt_u32_f32) X(v_cvt_i32_f32)                                                                        \
                              X(v_cvt_f32_f16) X(v_cvt_f16_f32) X(v_cvt_f64_f32) X(v_cvt_f32_f64)                                                                    \
                                  X(v_cvt_f64_i32) X(v_cvt_f64_u32) X(v_cvt_i32_f64)                                                                                 \
                                      X(v_cvt_u32_f64) X(v_add_f64) X(v_mul_f64) X(v_fma_f64)                                                                        \
                                          X(v_ldexp_f64) X(v_max_f64) X(v_min_f64) X(v_rcp_f64)                                                                      \
                                              X(v_add_f16) X(v_sub_f16) X(v_mul_f16) X(v_fma_f16)                                                                    \
                                                  X(v_fmac_f16) X(v_max_f16) X(v_min_f16)                                                                            \
                                                      X(v_pk_add_f16) X(v_pk_mul_f16)                                                                                \
                                                          X(v_pk_fma_f16) X(v_pk_max_f16)                                                                            \
                                                              X(v_pk_min_f16)                                                                                        \
                                                                  X(v_pk_max_num_f16)                                                                                \
                                                                      X(v_pk_min_num_f16)                                                                            \
                                                                                                                                                                     \
                                                                          X(v_dot2acc_f32_f16) /* VOPC: compares come from a template (see exec.cpp) */ /* memory */ \
      X(global_load_u8) X(global_load_i8) X(global_load_u16) X(global_load_i16) X(                                                                                   \
          global_load_b32) X(global_load_b64) X(global_load_b96) X(global_load_b128)                                                                                 \
          X(global_load_d16_b16) X(global_load_d16_hi_b16) X(global_store_b8) X(                                                                                     \
              global_store_b16) X(global_store_b32) X(global_store_b64) X(global_store_b96)                                                                          \
              X(global_store_b128) X(global_store_d16_hi_b8) X(global_store_d16_hi_b16) X(                                                                           \
                  global_atomic_add_u32) X(global_atomic_sub_u32) X(global_atomic_swap_b32)                                                                          \
                  X(global_atomic_cmpswap_b32) X(global_atomic_min_i32) X(                                                                                           \
                      global_atomic_max_i32) X(global_atomic_min_u32) X(global_atomic_max_u32)                                                                       \
                      X(global_atomic_and_b32) X(global_atomic_or_b32) X(global_atomic_xor_b32) X(                                                                   \
                          global_atomic_add_f32) X(global_atomic_add_u64) X(flat_load_b32)                                                                           \
                          X(flat_load_b64) X(flat_load_b128) X(flat_store_b32) X(                                                                                    \
                              flat_store_b64) X(flat_store_b128) X(global_inv)                                                                                       \
                              X(global_wb) X(buffer_gl0_inv) X(buffer_gl1_inv) X(ds_load_b32) X(                                                                     \
                                  ds_load_b64) X(ds_load_b128) X(ds_load_u8) X(ds_load_i8)                                                                           \
                                  X(ds_load_u16) X(ds_load_i16) X(ds_store_b8) X(ds_store_b16) X(                                                                    \
                                      ds_store_b32) X(ds_store_b64)                                                                                                  \
                                      X(ds_store_b128) X(ds_load_2addr_b32)                                                                                          \
                                          X(ds_load_2addr_stride64_b32) X(ds_load_2addr_b64) X(                                                                      \
                                              ds_load_2addr_stride64_b64) X(ds_store_2addr_b32)                                                                      \
                                              X(ds_store_2addr_stride64_b32) X(ds_store_2addr_b64)                                                                   \
                                                  X(ds_store_2addr_stride64_b64) X(ds_add_u32)                                                                       \
                                                      X(ds_add_rtn_u32) X(ds_max_i32)                                                                                \
                                                          X(ds_max_u32) X(ds_min_i32)                                                                                \
                                                              X(ds_min_u32) X(ds_add_f32)                                                                            \
                                                                  X(ds_bpermute_b32)                                                                                 \
                                                                      X(ds_permute_b32) \
  /* emudev block (issue 9 wiring): what the frontend op suite needs beyond the above */ \
  X(v_xad_u32) X(v_mul_dx9_zero_f32) X(v_max3_num_f32) X(v_min3_num_f32) X(s_cmp_lt_f32) \
  X(s_cmp_eq_f32) X(s_cmp_le_f32) X(s_cmp_gt_f32) X(s_cmp_lg_f32) X(s_cmp_ge_f32) X(s_cmp_o_f32) \
  X(s_cmp_u_f32) X(s_cmp_nge_f32) X(s_cmp_nlg_f32) X(s_cmp_ngt_f32) X(s_cmp_nle_f32) \
  X(s_cmp_neq_f32) X(s_cmp_nlt_f32)
// clang-format on

// Data-type completeness (issue 9 item 1): f16 math, 16-bit integers, packed 16-bit integers,
// f64 division / rounding / frexp, saturating adds. Kept apart from RDNA_OPS so merges stay easy.
// clang-format off
#define RDNA_OPS_TYPES(X)                                                                       \
  /* f16 */                                                                                    \
  X(v_subrev_f16) X(v_sqrt_f16) X(v_rcp_f16) X(v_rsq_f16) X(v_log_f16) X(v_exp_f16)             \
  X(v_sin_f16) X(v_cos_f16) X(v_floor_f16) X(v_ceil_f16) X(v_trunc_f16) X(v_rndne_f16)           \
  X(v_fract_f16) X(v_frexp_mant_f16) X(v_frexp_exp_i16_f16) X(v_ldexp_f16) X(v_div_fixup_f16)    \
  X(v_fmamk_f16) X(v_fmaak_f16) X(v_max_num_f16) X(v_min_num_f16) X(v_maximum_f16)              \
  X(v_minimum_f16) X(v_max3_f16) X(v_min3_f16) X(v_med3_f16) X(v_max3_num_f16)                   \
  X(v_min3_num_f16) X(v_med3_num_f16) X(v_cvt_i16_f16) X(v_cvt_u16_f16) X(v_cvt_f16_i16)         \
  X(v_cvt_f16_u16) X(v_cvt_i32_i16) X(v_cvt_u32_u16) X(v_cvt_pk_rtz_f16_f32) X(v_pack_b32_f16)   \
  X(v_fma_mix_f32) X(v_fma_mixlo_f16) X(v_fma_mixhi_f16) X(v_cvt_floor_i32_f32)                  \
  X(v_cvt_nearest_i32_f32)                                                                        \
  /* 16-bit integers */                                                                        \
  X(v_add_nc_i16) X(v_sub_nc_i16) X(v_lshlrev_b16) X(v_lshrrev_b16) X(v_ashrrev_i16)            \
  X(v_min_i16) X(v_max_i16) X(v_min_u16) X(v_max_u16) X(v_med3_i16) X(v_med3_u16) X(v_max3_i16)  \
  X(v_max3_u16) X(v_min3_i16) X(v_min3_u16) X(v_mad_u16) X(v_mad_i16) X(v_mad_u32_u16)          \
  X(v_mad_i32_i16) X(v_and_b16) X(v_or_b16) X(v_xor_b16) X(v_not_b16) X(v_mov_b16)              \
  X(v_cvt_pk_i16_i32) X(v_cvt_pk_u16_u32) X(v_sat_pk_u8_i16) X(v_add_nc_i32) X(v_sub_nc_i32)    \
  X(v_alignbyte_b32) X(v_swap_b32) X(v_movreld_b32) X(v_movrels_b32) X(v_movrelsd_b32)   \
  X(v_movrelsd_2_b32)                                                                                                                                         \
  /* packed 16-bit integers */                                                                 \
  X(v_pk_add_u16) X(v_pk_add_i16) X(v_pk_sub_u16) X(v_pk_sub_i16) X(v_pk_mul_lo_u16)            \
  X(v_pk_lshlrev_b16) X(v_pk_lshrrev_b16) X(v_pk_ashrrev_i16) X(v_pk_min_i16) X(v_pk_max_i16)   \
  X(v_pk_min_u16) X(v_pk_max_u16) X(v_pk_mad_u16) X(v_pk_mad_i16) X(v_pk_maximum_f16)           \
  X(v_pk_minimum_f16) X(v_pk_fmac_f16)                                                          \
  /* f64 */                                                                                    \
  X(v_div_scale_f64) X(v_div_fmas_f64) X(v_div_fixup_f64) X(v_rsq_f64) X(v_sqrt_f64)             \
  X(v_trunc_f64) X(v_floor_f64) X(v_ceil_f64) X(v_rndne_f64) X(v_fract_f64) X(v_frexp_mant_f64)  \
  X(v_frexp_exp_i32_f64) X(v_max_num_f64) X(v_min_num_f64) X(v_maximum_f64) X(v_minimum_f64) \
  /* gfx12 SALU f32 that LLVM picks for uniform minimum/maximum and exp's rounding */          \
  X(s_minimum_f32) X(s_maximum_f32) X(s_rndne_f32)                                            \
  /* gfx12 SALU f16 (LLVM's uniform half arithmetic, e.g. half kernel arguments) */            \
  X(s_add_f16) X(s_sub_f16) X(s_mul_f16) X(s_fmac_f16) X(s_max_num_f16) X(s_min_num_f16)        \
  X(s_maximum_f16) X(s_minimum_f16) X(s_ceil_f16) X(s_floor_f16) X(s_trunc_f16) X(s_rndne_f16)   \
  X(s_cvt_f32_f16) X(s_cvt_hi_f32_f16) X(s_cvt_f16_f32) X(s_cmp_lt_f16) X(s_cmp_eq_f16)          \
  X(s_cmp_le_f16) X(s_cmp_gt_f16) X(s_cmp_lg_f16) X(s_cmp_ge_f16) X(s_cmp_o_f16) X(s_cmp_u_f16)  \
  X(s_cmp_nge_f16) X(s_cmp_nlg_f16) X(s_cmp_ngt_f16) X(s_cmp_nle_f16) X(s_cmp_neq_f16)           \
  X(s_cmp_nlt_f16)                                                                             \
  /* two-step and three-way min/max (LLVM's min/max chains and clamps) */                     \
  X(v_maxmin_f32) X(v_minmax_f32) X(v_maxmin_num_f32) X(v_minmax_num_f32)                       \
  X(v_maximumminimum_f32) X(v_minimummaximum_f32) X(v_maximum3_f32) X(v_minimum3_f32)           \
  X(v_med3_num_f32) X(v_maxmin_f16) X(v_minmax_f16) X(v_maxmin_num_f16) X(v_minmax_num_f16)     \
  X(v_maximumminimum_f16) X(v_minimummaximum_f16) X(v_maximum3_f16) X(v_minimum3_f16)           \
  X(v_maxmin_u32) X(v_minmax_u32) X(v_maxmin_i32) X(v_minmax_i32)
// clang-format on

// Cross-lane (issue 9 item 3): DPP itself is a src0 modifier handled for every VALU op.
// clang-format off
#define RDNA_OPS_LANES(X) X(v_permlane16_b32) X(v_permlanex16_b32) X(ds_swizzle_b32)
// WMMA (issue 9 item 4)
#define RDNA_OPS_WMMA(X) X(v_wmma_f32_16x16x16_f16) X(v_wmma_f32_16x16x16_bf16) X(v_wmma_f16_16x16x16_f16) \
  X(v_wmma_bf16_16x16x16_bf16) X(v_wmma_i32_16x16x16_iu8)
// clang-format on

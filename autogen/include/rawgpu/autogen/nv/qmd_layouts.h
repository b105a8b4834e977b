// The QMD fields a grid launch uses, by role, for each layout rawgpu builds (V03 on Ampere, Ada
// and Hopper; V04 on Hopper): the driver encodes through this table and the simulated GPU
// decodes through it, so both read the same positions of qmd.h / qmd_v04.h. A role is a field
// and an instance index (V04 numbers its release slots and constant banks through indexed
// fields, V03 names them). Roles a layout does not have are null.
#pragma once

#include <cstdint>
#include <span>

#include "rawgpu/autogen/nv/qmd.h"
#include "rawgpu/autogen/nv/qmd_v04.h"

namespace rawgpu::autogen::nv::qmd {

struct Role {
  const QmdField* f = nullptr;
  uint32_t i = 0;
  constexpr bool present() const { return f != nullptr; }
  constexpr BitField at() const { return f->at(i); }
};

struct ReleaseSlot {
  Role enable, structure_size, payload64, addr_lo, addr_hi, payload_lo, payload_hi;
};

struct Layout {
  uint32_t version = 0;  // QMD_MAJOR_VERSION
  uint32_t bytes = 0;
  uint32_t cb_addr_shift = 0;  // constant-buffer addresses are stored >> this
  Role group_id, qmd_type, sm_global_caching, major_version;
  Role invalidate[4];  // texture header, sampler, data; shader data
  Role membar_type, api_visible_call_limit, sampler_index;
  Role grid[3], block[3];
  Role shared_size, min_carveout, max_carveout, target_carveout;
  Role register_count, barrier_count, sass_version, local_high_size;
  Role program_lo, program_hi;
  const QmdField *cb_valid, *cb_addr_lo, *cb_addr_hi, *cb_size, *cb_invalidate;  // indexed by bank
  ReleaseSlot release[2];
  // Dependent QMD 0 (chaining).
  Role dep_pointer, dep_enable, dep_action, dep_prefetch;
};

inline constexpr Layout kV03{
    3,
    v03::kBytes,
    0,
    {&v03::QMD_GROUP_ID},
    {},
    {&v03::SM_GLOBAL_CACHING_ENABLE},
    {&v03::QMD_MAJOR_VERSION},
    {{&v03::INVALIDATE_TEXTURE_HEADER_CACHE},
     {&v03::INVALIDATE_TEXTURE_SAMPLER_CACHE},
     {&v03::INVALIDATE_TEXTURE_DATA_CACHE},
     {&v03::INVALIDATE_SHADER_DATA_CACHE}},
    {&v03::CWD_MEMBAR_TYPE},
    {&v03::API_VISIBLE_CALL_LIMIT},
    {&v03::SAMPLER_INDEX},
    {{&v03::CTA_RASTER_WIDTH}, {&v03::CTA_RASTER_HEIGHT}, {&v03::CTA_RASTER_DEPTH}},
    {{&v03::CTA_THREAD_DIMENSION0}, {&v03::CTA_THREAD_DIMENSION1}, {&v03::CTA_THREAD_DIMENSION2}},
    {&v03::SHARED_MEMORY_SIZE},
    {&v03::MIN_SM_CONFIG_SHARED_MEM_SIZE},
    {&v03::MAX_SM_CONFIG_SHARED_MEM_SIZE},
    {&v03::TARGET_SM_CONFIG_SHARED_MEM_SIZE},
    {&v03::REGISTER_COUNT_V},
    {&v03::BARRIER_COUNT},
    {&v03::SASS_VERSION},
    {&v03::SHADER_LOCAL_MEMORY_HIGH_SIZE},
    {&v03::PROGRAM_ADDRESS_LOWER},
    {&v03::PROGRAM_ADDRESS_UPPER},
    &v03::CONSTANT_BUFFER_VALID,
    &v03::CONSTANT_BUFFER_ADDR_LOWER,
    &v03::CONSTANT_BUFFER_ADDR_UPPER,
    &v03::CONSTANT_BUFFER_SIZE_SHIFTED4,
    &v03::CONSTANT_BUFFER_INVALIDATE,
    {ReleaseSlot{{&v03::RELEASE0_ENABLE},
                 {&v03::RELEASE0_STRUCTURE_SIZE},
                 {&v03::RELEASE0_PAYLOAD64B},
                 {&v03::RELEASE0_ADDRESS_LOWER},
                 {&v03::RELEASE0_ADDRESS_UPPER},
                 {&v03::RELEASE0_PAYLOAD_LOWER},
                 {&v03::RELEASE0_PAYLOAD_UPPER}},
     ReleaseSlot{{&v03::RELEASE1_ENABLE},
                 {&v03::RELEASE1_STRUCTURE_SIZE},
                 {&v03::RELEASE1_PAYLOAD64B},
                 {&v03::RELEASE1_ADDRESS_LOWER},
                 {&v03::RELEASE1_ADDRESS_UPPER},
                 {&v03::RELEASE1_PAYLOAD_LOWER},
                 {&v03::RELEASE1_PAYLOAD_UPPER}}},
    {&v03::DEPENDENT_QMD0_POINTER},
    {&v03::DEPENDENT_QMD0_ENABLE},
    {&v03::DEPENDENT_QMD0_ACTION},
    {&v03::DEPENDENT_QMD0_PREFETCH},
};

inline constexpr Layout kV04{
    4,
    v04::kBytes,
    6,
    {&v04::QMD_GROUP_ID},
    {&v04::QMD_TYPE},
    {},
    {&v04::QMD_MAJOR_VERSION},
    {{&v04::INVALIDATE_TEXTURE_HEADER_CACHE},
     {&v04::INVALIDATE_TEXTURE_SAMPLER_CACHE},
     {&v04::INVALIDATE_TEXTURE_DATA_CACHE},
     {&v04::INVALIDATE_SHADER_DATA_CACHE}},
    {&v04::CWD_MEMBAR_TYPE},
    {&v04::API_VISIBLE_CALL_LIMIT},
    {&v04::SAMPLER_INDEX},
    {{&v04::GRID_WIDTH}, {&v04::GRID_HEIGHT}, {&v04::GRID_DEPTH}},
    {{&v04::CTA_THREAD_DIMENSION0}, {&v04::CTA_THREAD_DIMENSION1}, {&v04::CTA_THREAD_DIMENSION2}},
    {&v04::SHARED_MEMORY_SIZE},
    {&v04::MIN_SM_CONFIG_SHARED_MEM_SIZE},
    {&v04::MAX_SM_CONFIG_SHARED_MEM_SIZE},
    {&v04::TARGET_SM_CONFIG_SHARED_MEM_SIZE},
    {&v04::REGISTER_COUNT},
    {&v04::BARRIER_COUNT},
    {&v04::SASS_VERSION},
    {&v04::SHADER_LOCAL_MEMORY_HIGH_SIZE},
    {&v04::PROGRAM_ADDRESS_LOWER},
    {&v04::PROGRAM_ADDRESS_UPPER},
    &v04::CONSTANT_BUFFER_VALID,
    &v04::CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6,
    &v04::CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6,
    &v04::CONSTANT_BUFFER_SIZE_SHIFTED4,
    &v04::CONSTANT_BUFFER_INVALIDATE,
    {ReleaseSlot{{&v04::RELEASE_ENABLE, 0},
                 {&v04::RELEASE_STRUCTURE_SIZE, 0},
                 {&v04::RELEASE_PAYLOAD64B, 0},
                 {&v04::RELEASE_SEMAPHORE0_ADDR_LOWER},
                 {&v04::RELEASE_SEMAPHORE0_ADDR_UPPER},
                 {&v04::RELEASE_SEMAPHORE0_PAYLOAD_LOWER},
                 {&v04::RELEASE_SEMAPHORE0_PAYLOAD_UPPER}},
     ReleaseSlot{{&v04::RELEASE_ENABLE, 1},
                 {&v04::RELEASE_STRUCTURE_SIZE, 1},
                 {&v04::RELEASE_PAYLOAD64B, 1},
                 {&v04::RELEASE_SEMAPHORE1_ADDR_LOWER},
                 {&v04::RELEASE_SEMAPHORE1_ADDR_UPPER},
                 {&v04::RELEASE_SEMAPHORE1_PAYLOAD_LOWER},
                 {&v04::RELEASE_SEMAPHORE1_PAYLOAD_UPPER}}},
    {&v04::DEPENDENT_QMD0_POINTER},
    {&v04::DEPENDENT_QMD_ENABLE, 0},
    {&v04::DEPENDENT_QMD_ACTION, 0},
    {&v04::DEPENDENT_QMD_PREFETCH, 0},
};

// The layout whose QMD_MAJOR_VERSION (bits 583:580 in both) `q` carries; null for others.
inline const Layout* layout_of(std::span<const uint32_t> q) {
  if (q.size() < v03::kBytes / 4) return nullptr;
  const uint64_t major = get_bits(q, v03::QMD_MAJOR_VERSION.at());
  if (major == 3) return &kV03;
  if (major == 4 && q.size() >= v04::kBytes / 4) return &kV04;
  return nullptr;
}

}  // namespace rawgpu::autogen::nv::qmd

#pragma once
// Tile sizes come from the build (target_compile_definitions): no default here on purpose, so a
// compile without the project's flags fails on them.
namespace ops {
constexpr int tile_dim = TILE_DIM;
constexpr int block_rows = 8;
}  // namespace ops

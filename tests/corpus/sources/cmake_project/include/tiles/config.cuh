// Tile sizes a project's build sets with -D; this header refuses to guess.
#pragma once
#ifndef TILE
#error "TILE is set by the build (-DTILE=...)"
#endif

template <typename T>
constexpr T tile_scale() { return T(TILE) / T(2); }

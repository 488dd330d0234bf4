// Numbers as the writers print them: exact integers, shortest round-trip decimals, exact bin edges.
#pragma once

#include <cstdint>
#include <string>

#include "histogram_job.hpp"

namespace ghist::cli {

void append_int128(std::string& out, __int128 v);
void append_integer(std::string& out, std::int64_t v);
void append_unsigned(std::string& out, std::uint64_t v);
/// Shortest decimal that reads back to the same double; nan, inf, -inf for the others.
void append_real(std::string& out, double v);

/// Edge e (0..num_bins) of `layout` (see --help): nominal float edges, exact integer edges, k for bincount.
template <class Sample>
void append_edge(std::string& out, const bin_layout<Sample>& layout, std::int64_t e);

}  // namespace ghist::cli

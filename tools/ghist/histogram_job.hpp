// What the CLI asks a backend to compute (histogram_job) and what it gets back (histogram_result).
#pragma once

#include <cstdint>
#include <vector>

namespace ghist::cli {

/// --op: count, or the per-bin sum / min / max of the weights.
enum class op_kind { count, sum, min, max };

inline const char* to_string(op_kind op) {
  switch (op) {
    case op_kind::sum: return "sum";
    case op_kind::min: return "min";
    case op_kind::max: return "max";
    default: return "count";
  }
}

/// How samples map to bins: even bins over [lower, upper), or integer keys (bincount, bin k holds key k).
template <class Sample>
struct bin_layout {
  bool bincount = false;
  std::int64_t num_bins = 0;
  Sample lower{};            ///< even bins only
  Sample upper{};            ///< even bins only
  bool closed_last = false;  ///< even bins only: samples equal to `upper` also go to the last bin (NumPy)
};

template <class Sample>
struct histogram_job {
  const std::vector<Sample>* samples = nullptr;
  const std::vector<double>* weights = nullptr;  ///< null for op_kind::count; else as many as samples
  op_kind op = op_kind::count;
  bin_layout<Sample> bins;

  /// min and max need per-bin counts too, to tell an empty bin from one whose value is the operator's identity.
  bool needs_counts() const { return op != op_kind::sum; }
  bool needs_values() const { return op != op_kind::count; }
};

struct histogram_result {
  std::vector<std::uint64_t> counts;  ///< per bin when job.needs_counts(), else empty
  std::vector<double> values;         ///< per bin when job.needs_values(), else empty
};

}  // namespace ghist::cli

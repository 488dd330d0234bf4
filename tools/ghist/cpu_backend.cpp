// The CPU backend: ghist::cpu on the host vectors, all cores.
#include <cstdint>
#include <type_traits>

#include "backend.hpp"
#include "cli_error.hpp"
#include "ghist/cpu.hpp"

namespace ghist::cli {

namespace {

template <class Sample, class Op>
void weighted(const histogram_job<Sample>& job, Op op, double* out, ghist::mode how = ghist::mode::overwrite) {
  const auto n = static_cast<std::int64_t>(job.samples->size());
  const Sample* x = job.samples->data();
  const double* w = job.weights->data();
  if constexpr (std::is_integral_v<Sample>) {
    if (job.bins.bincount) return ghist::cpu::weighted_bincount(x, w, n, out, job.bins.num_bins, op, how);
  }
  ghist::cpu::weighted_histogram_even(x, w, n, out, job.bins.num_bins, job.bins.lower, job.bins.upper, op, how);
}

}  // namespace

template <class Sample>
void add_on_cpu(const histogram_job<Sample>& job, histogram_result& r, bool first) {
  if (job.bins.bincount && !std::is_integral_v<Sample>) throw usage_error("--bincount needs integer keys");
  const auto n = static_cast<std::int64_t>(job.samples->size());
  const std::int64_t bins = job.bins.num_bins;
  const ghist::mode how = first ? ghist::mode::overwrite : ghist::mode::accumulate;
  if (job.needs_counts()) {
    r.counts.resize(static_cast<std::size_t>(bins));
    if constexpr (std::is_integral_v<Sample>) {
      if (job.bins.bincount) ghist::cpu::bincount(job.samples->data(), n, r.counts.data(), bins, how);
    }
    if (!job.bins.bincount)
      ghist::cpu::histogram_even(job.samples->data(), n, r.counts.data(), bins, job.bins.lower, job.bins.upper, how);
  }
  if (job.needs_values()) {
    r.values.resize(static_cast<std::size_t>(bins));
    switch (job.op) {
      case op_kind::sum: weighted(job, ghist::plus<double>{}, r.values.data(), how); break;
      case op_kind::min: weighted(job, ghist::min<double>{}, r.values.data(), how); break;
      case op_kind::max: weighted(job, ghist::max<double>{}, r.values.data(), how); break;
      case op_kind::count: break;
    }
  }
}

template <class Sample>
histogram_result run_on_cpu(const histogram_job<Sample>& job) {
  histogram_result r;
  add_on_cpu(job, r, true);
  return r;
}

template void add_on_cpu(const histogram_job<std::int64_t>&, histogram_result&, bool);
template void add_on_cpu(const histogram_job<std::uint64_t>&, histogram_result&, bool);
template void add_on_cpu(const histogram_job<double>&, histogram_result&, bool);

template histogram_result run_on_cpu(const histogram_job<std::int64_t>&);
template histogram_result run_on_cpu(const histogram_job<std::uint64_t>&);
template histogram_result run_on_cpu(const histogram_job<double>&);

}  // namespace ghist::cli

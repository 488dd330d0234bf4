// An overwrite call's fill of dest done inside the kernel (overwrite_gate.hpp; the hardware-atomic class up to
// overwrite_gate_max_bins, times a told race factor): calls in flight on several streams at once, each stream with
// its own gate, a call captured into a graph (no gate: the fill stays a memset) and replayed, and calls told a race
// factor above the bin limit. Each destination starts as garbage and is compared with the CPU backend; beyond the
// streams that get a gate, calls fall back to the memset. Every other overwrite test on the default stream goes
// through the gate too.
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/cpu.hpp"
#include "ghist/detail/overwrite_gate.hpp"
#include "ghist/generalized_histogram.cuh"
#include "test_support.cuh"

namespace ghist_test {
namespace {

template <class Op>
struct overwrite_job {
  using T = typename Op::value_type;
  std::int64_t H;
  std::vector<T> expected;
  std::vector<T> garbage;
  std::unique_ptr<device_buffer<std::uint64_t>> elements;
  std::unique_ptr<device_buffer<T>> dest;

  overwrite_job(distribution d, std::int64_t n, std::int64_t H_, std::mt19937_64& rng) : H(H_) {
    const auto host = make_elements(d, n, H, rng);
    garbage.resize(static_cast<std::size_t>(H));
    for (auto& v : garbage) v = op_case<Op>::initial(rng);
    expected = garbage;
    ghist::cpu::generalized_histogram(host.data(), n, element_to_update<Op>{}, Op{}, expected.data(), H,
                                      ghist::mode::overwrite);
    elements = std::make_unique<device_buffer<std::uint64_t>>(host);
    dest = std::make_unique<device_buffer<T>>(garbage);
  }
  void enqueue(cudaStream_t stream, const ghist::options& opts) const {
    ghist::generalized_histogram_async(elements->get(), static_cast<std::int64_t>(elements->size()),
                                       element_to_update<Op>{}, Op{}, dest->get(), H, stream, opts);
  }
  void expect_done(const char* what) const {
    const std::vector<T> got = dest->download();
    std::int64_t mismatches = 0;
    for (std::int64_t b = 0; b < H; ++b)
      if (!op_case<Op>::equal(got[b], expected[b]) && ++mismatches <= 3)
        ADD_FAILURE() << what << ": bin " << b << " of " << H << " differs from the CPU backend";
    EXPECT_EQ(mismatches, 0) << what;
  }
};

// Four non-blocking streams, six calls each, all enqueued before any wait: calls on different streams run side by
// side, each launch with its own ticket on its stream's gate.
template <class Op>
void streams_side_by_side() {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  constexpr int streams = 4, calls = 6;
  const std::int64_t sizes[] = {31, 2048, 12288, 4097, 16384};  // 16384: above the gate's bins, a memset
  const distribution dists[] = {distribution::uniform, distribution::zipf, distribution::one_bin};
  std::vector<overwrite_job<Op>> jobs;
  for (int i = 0; i < streams * calls; ++i)
    jobs.emplace_back(dists[i % 3], (1 << 20) + 3 * i + 1, sizes[i % 5], rng);
  std::vector<cudaStream_t> s(streams);
  for (auto& one : s) CUDA_OK(cudaStreamCreateWithFlags(&one, cudaStreamNonBlocking));
  ghist::options opts;
  opts.how = ghist::mode::overwrite;
  for (int c = 0; c < calls; ++c)
    for (int k = 0; k < streams; ++k) jobs[static_cast<std::size_t>(c * streams + k)].enqueue(s[k], opts);
  CUDA_OK(cudaDeviceSynchronize());
  for (auto& one : s) CUDA_OK(cudaStreamDestroy(one));
  for (const auto& job : jobs) job.expect_done("streams side by side");
}

TEST(OverwriteGate, StreamsSideBySide) {
  streams_side_by_side<ghist::plus<std::uint32_t>>();
  streams_side_by_side<ghist::max<std::int32_t>>();  // an identity that is not zero
}

// Told a race factor, calls over more than overwrite_gate_max_bins bins take the gate while H / RF stays within it
// (overwrite_gate_wanted): one-pass plans of two blocks per SM and of one (49152 bins of 4 bytes), a multi-pass plan
// (the generic kernel's gated instance), and whatever the input really is (a told race factor is only a hint).
TEST(OverwriteGate, ToldRaceFactorAboveTheBinLimit) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const distribution dists[] = {distribution::uniform, distribution::zipf, distribution::one_bin,
                                distribution::out_of_range};
  struct told {
    std::int64_t H;
    double race_factor;
    int S;  // plan_overrides::S, 0: the planner's
  };
  for (const told t : {told{16384, 2, 0}, told{24576, 63, 0}, told{49152, 8, 0}, told{40000, 63, 3}}) {
    ASSERT_TRUE(ghist::detail::overwrite_gate_wanted(t.H, t.race_factor));
    ASSERT_FALSE(ghist::detail::overwrite_gate_wanted(t.H, 1.0));
    for (const distribution d : dists) {
      overwrite_job<ghist::plus<std::uint32_t>> job(d, (1 << 20) + 5, t.H, rng);
      ghist::options opts;
      opts.how = ghist::mode::overwrite;
      opts.race_factor = t.race_factor;
      opts.overrides.S = t.S;
      if (t.S > 0) opts.overrides.kind = ghist::strategy::shared_memory;
      job.enqueue(0, opts);
      CUDA_OK(cudaDeviceSynchronize());
      job.expect_done(("H = " + std::to_string(t.H) + ", RF " + std::to_string(t.race_factor)).c_str());
    }
  }
}

// A call captured into a graph has no gate (replays could run side by side); replayed twice over garbage.
TEST(OverwriteGate, CapturedCallReplays) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  overwrite_job<ghist::plus<std::uint32_t>> job(distribution::uniform, (1 << 20) + 9, 6000, rng);
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  ghist::options opts;
  opts.how = ghist::mode::overwrite;
  cudaGraph_t graph;
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  job.enqueue(s, opts);
  CUDA_OK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {
    job.dest->upload(job.garbage);
    CUDA_OK(cudaGraphLaunch(exec, s));
    CUDA_OK(cudaStreamSynchronize(s));
    job.expect_done(replay == 0 ? "first replay" : "second replay");
  }
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  CUDA_OK(cudaStreamDestroy(s));
}

// Past overwrite_gate_max_streams streams a device's further streams get no gate (their calls fill with a memset):
// calls on streams on both sides of that limit, each checked. The gates of streams the other tests used count too.
TEST(OverwriteGate, StreamsBeyondTheGateLimit) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  overwrite_job<ghist::plus<std::uint32_t>> job(distribution::uniform, 4099, 2048, rng);
  ghist::options opts;
  opts.how = ghist::mode::overwrite;
  for (int k = 0; k < ghist::detail::overwrite_gate_max_streams + 8; ++k) {
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const bool checked = k % 512 == 0 || k >= ghist::detail::overwrite_gate_max_streams - 8;
    if (checked) job.dest->upload(job.garbage);
    job.enqueue(s, opts);
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaStreamDestroy(s));
    if (checked) job.expect_done(("stream " + std::to_string(k)).c_str());
  }
}

}  // namespace
}  // namespace ghist_test

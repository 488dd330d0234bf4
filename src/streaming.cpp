// ghist::streaming_histogram (ghist/streaming.hpp): pinned staging buffers, one stream and device buffer each, used
// round robin; the engine's compiled entry points (histogram.hpp) accumulate every chunk into one device result.
#include "ghist/streaming.hpp"

#include <cmath>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "ghist/detail/streaming/chunk_plan.hpp"
#include "ghist/detail/streaming/copy_pool.hpp"
#include "ghist/detail/streaming/cuda_resources.hpp"
#include "ghist/error.hpp"
#include "ghist/histogram.hpp"

namespace ghist {

namespace {

using detail::cuda_check;

template <class Sample>
void check_bins(const stream_bins<Sample>& b) {
  if (b.num_bins <= 0) throw error("bins.num_bins must be positive, got " + std::to_string(b.num_bins));
  if (b.bincount) {
    if (std::is_floating_point_v<Sample>) throw error("bins: keys (bincount) need an integer Sample type");
    return;
  }
  if constexpr (std::is_floating_point_v<Sample>) {
    if (!std::isfinite(b.lower) || !std::isfinite(b.upper)) throw error("bins.lower and bins.upper must be finite");
  }
  if (!(b.lower < b.upper)) throw error("bins.lower must be below bins.upper");
}

enum class memory_kind { pageable, pinned, device };

/// Where [p, p + bytes) lives. Pinned means the whole range is page-locked host memory the device can copy from.
memory_kind classify(const void* p, std::size_t bytes) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();  // older runtimes report plain host memory as an error: clear it, treat it as pageable
    return memory_kind::pageable;
  }
  if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) return memory_kind::device;
  if (a.type != cudaMemoryTypeHost) return memory_kind::pageable;
  // A registered range shorter than the push would make the copy fail half way: check the last byte too.
  cudaPointerAttributes last{};
  const void* end = static_cast<const char*>(p) + (bytes - 1);
  if (cudaPointerGetAttributes(&last, end) != cudaSuccess) {
    cudaGetLastError();
    return memory_kind::pageable;
  }
  return last.type == cudaMemoryTypeHost ? memory_kind::pinned : memory_kind::pageable;
}

}  // namespace

template <class Sample, class Count, class Weight>
struct streaming_histogram<Sample, Count, Weight>::impl {
  // One staging buffer: its stream orders the copy into dev_* before the histogram that reads it, and the next
  // copy into dev_* after that histogram. `copied`: the pinned buffer may be refilled; `done`: the histogram ran.
  struct slot {
    detail::stream_handle stream;
    detail::event_handle copied, done;
    detail::pinned_memory pin_x, pin_w;
    detail::device_memory dev_x, dev_w;
    ~slot() { cudaStreamSynchronize(stream.get()); }  // before the buffers go: nothing in flight may use them
  };

  stream_bins<Sample> bins;
  bool want_counts;
  stream_values values;
  options engine;
  detail::staging_plan plan;
  detail::device_memory counts, sums;  // declared before the slots: freed after them (after their last wait)
  std::vector<std::unique_ptr<slot>> slots;
  std::size_t next = 0;  ///< slot of the next chunk
  int last = -1;         ///< slot whose histogram was enqueued last (the next one waits for it)
  bool finished = false, acquired = false;
  std::int64_t pushed = 0;
  detail::copy_pool copier;  ///< threads for the pageable-to-pinned copies, started on first need
  std::size_t register_bytes = 0;
  std::vector<void*> registered;  ///< caller's ranges pinned by push() (register_bytes), unregistered after a wait

  ~impl() { release_registered(); }

  impl(const stream_bins<Sample>& b, bool c, stream_values v, const streaming_options& o)
      : bins(b), want_counts(c), values(v), engine(o.engine) {
    check_bins(b);
    if (!c && v == stream_values::none) throw error("nothing to compute: counts is false and values is none");
    plan = detail::plan_staging(o, sizeof(Sample));
    register_bytes = o.register_bytes;
    engine.how = mode::accumulate;
    if (engine.race_factor == 0.0) engine.race_factor = 1.0;
    const auto H = static_cast<std::size_t>(b.num_bins);
    if (want_counts) counts = detail::alloc_device(H * sizeof(Count));
    if (values != stream_values::none) sums = detail::alloc_device(H * sizeof(Weight));
    for (int i = 0; i < plan.buffers; ++i) {
      auto s = std::make_unique<slot>();
      s->pin_x = detail::alloc_pinned(plan.chunk_elements * sizeof(Sample));
      s->dev_x = detail::alloc_device(plan.chunk_elements * sizeof(Sample));
      if (values != stream_values::none) {
        s->pin_w = detail::alloc_pinned(plan.chunk_elements * sizeof(Weight));
        s->dev_w = detail::alloc_device(plan.chunk_elements * sizeof(Weight));
      }
      slots.push_back(std::move(s));
    }
    fill_identity();
  }

  // An overwrite of no samples: the engine fills the bins with the operator's identity. Later chunks wait for it.
  void fill_identity() {
    slot& s0 = *slots[0];
    options fill = engine;
    fill.how = mode::overwrite;
    histogram(s0.stream.get(), nullptr, nullptr, 0, fill);
    cuda_check(cudaEventRecord(s0.done.get(), s0.stream.get()), "cudaEventRecord");
    last = 0;
    next = 1;
  }

  void histogram(cudaStream_t st, const Sample* x, const Weight* w, std::int64_t n, const options& o) {
    const std::int64_t H = bins.num_bins;
    if (want_counts) {
      auto* c = static_cast<Count*>(counts.get());
      if constexpr (std::is_integral_v<Sample>) {
        if (bins.bincount) bincount_async(x, n, c, H, st, o);
      }
      if (!bins.bincount) histogram_even_async(x, n, c, H, bins.lower, bins.upper, st, o);
    }
    auto* v = static_cast<Weight*>(sums.get());
    auto weighted = [&](auto op) {
      if constexpr (std::is_integral_v<Sample>) {
        if (bins.bincount) return weighted_bincount_async(x, w, n, v, H, op, st, o);
      }
      weighted_histogram_even_async(x, w, n, v, H, bins.lower, bins.upper, op, st, o);
    };
    switch (values) {
      case stream_values::sum: weighted(plus<Weight>{}); break;
      case stream_values::min: weighted(min<Weight>{}); break;
      case stream_values::max: weighted(max<Weight>{}); break;
      case stream_values::none: break;
    }
  }

  /// Enqueues the histogram of n samples at x (and w), device-readable, on slot i's stream after the previous
  /// chunk's histogram.
  void enqueue_histogram(std::size_t i, const Sample* x, const Weight* w, std::int64_t n) {
    slot& s = *slots[i];
    if (last >= 0 && static_cast<std::size_t>(last) != i)
      cuda_check(cudaStreamWaitEvent(s.stream.get(), slots[static_cast<std::size_t>(last)]->done.get(), 0),
                 "cudaStreamWaitEvent");
    histogram(s.stream.get(), x, w, n, engine);
    cuda_check(cudaEventRecord(s.done.get(), s.stream.get()), "cudaEventRecord");
    last = static_cast<int>(i);
    pushed += n;
  }

  /// Copies n samples (and weights) from host memory the DMA engine can read into slot i's device buffers, then
  /// enqueues their histogram, and moves on to the next slot.
  void enqueue_chunk(std::size_t i, const Sample* x, const Weight* w, std::int64_t n) {
    slot& s = *slots[i];
    const auto m = static_cast<std::size_t>(n);
    cuda_check(cudaMemcpyAsync(s.dev_x.get(), x, m * sizeof(Sample), cudaMemcpyHostToDevice, s.stream.get()),
               "cudaMemcpyAsync (samples to the device)");
    if (w != nullptr)
      cuda_check(cudaMemcpyAsync(s.dev_w.get(), w, m * sizeof(Weight), cudaMemcpyHostToDevice, s.stream.get()),
                 "cudaMemcpyAsync (weights to the device)");
    cuda_check(cudaEventRecord(s.copied.get(), s.stream.get()), "cudaEventRecord");
    enqueue_histogram(i, static_cast<const Sample*>(s.dev_x.get()), static_cast<const Weight*>(s.dev_w.get()), n);
    next = (i + 1) % slots.size();
  }

  void check_push(const Sample* x, const Weight* w, std::int64_t n, bool weights_given) const {
    if (finished) throw error("push after finish()");
    if (acquired) throw error("push between acquire() and commit()");
    if (n < 0) throw error("n must not be negative, got " + std::to_string(n));
    if (values == stream_values::none && weights_given) throw error("weights given but values is none");
    if (values != stream_values::none && !weights_given) throw error("weights missing: values is not none");
    if (n > 0 && x == nullptr) throw error("samples is null with n > 0");
    if (n > 0 && weights_given && w == nullptr) throw error("weights is null with n > 0");
  }

  void push(const Sample* x, const Weight* w, std::int64_t n) {
    if (n == 0) return;
    const bool weighted = values != stream_values::none;
    const std::size_t bytes_x = static_cast<std::size_t>(n) * sizeof(Sample);
    const std::size_t bytes_w = weighted ? static_cast<std::size_t>(n) * sizeof(Weight) : 0;
    const memory_kind kx = pin_in_place(x, bytes_x, classify(x, bytes_x));
    const memory_kind kw = weighted ? pin_in_place(w, bytes_w, classify(w, bytes_w)) : kx;
    if (kx == memory_kind::device && kw == memory_kind::device) {
      enqueue_histogram(next, x, w, n);  // already there: no copy, one engine call
      next = (next + 1) % slots.size();
      return;
    }
    const auto c = static_cast<std::int64_t>(plan.chunk_elements);
    for (std::int64_t off = 0; off < n; off += c) {
      const std::int64_t m = std::min(c, n - off);
      const std::size_t i = next;
      slot& s = *slots[i];
      const Sample* from_x = x + off;
      const Weight* from_w = weighted ? w + off : nullptr;
      // Device input mixed with host input, or pageable input: stage through the pinned buffer. Pinned input is
      // copied straight from the caller's memory.
      const bool stage_x = kx != memory_kind::pinned, stage_w = weighted && kw != memory_kind::pinned;
      if (stage_x || stage_w) cuda_check(cudaEventSynchronize(s.copied.get()), "cudaEventSynchronize");
      if (stage_x) {
        stage(s.pin_x.get(), from_x, static_cast<std::size_t>(m) * sizeof(Sample), kx);
        from_x = static_cast<const Sample*>(s.pin_x.get());
      }
      if (stage_w) {
        stage(s.pin_w.get(), from_w, static_cast<std::size_t>(m) * sizeof(Weight), kw);
        from_w = static_cast<const Weight*>(s.pin_w.get());
      }
      enqueue_chunk(i, from_x, from_w, m);
    }
  }

  void stage(void* pinned, const void* from, std::size_t bytes, memory_kind k) {
    if (k == memory_kind::device) {
      cuda_check(cudaMemcpy(pinned, from, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (device input to staging)");
      return;
    }
    copier.copy(pinned, from, bytes, detail::copy_threads_for(bytes, plan.copy_threads));
  }

  /// register_bytes: pins a large pageable range in place; the copies then read it directly.
  memory_kind pin_in_place(const void* p, std::size_t bytes, memory_kind k) {
    if (k != memory_kind::pageable || register_bytes == 0 || bytes < register_bytes) return k;
    void* q = const_cast<void*>(p);  // registering does not write the caller's memory
    if (cudaHostRegister(q, bytes, cudaHostRegisterDefault) != cudaSuccess) {
      cudaGetLastError();  // e.g. overlaps a registered range: stage it instead
      return k;
    }
    registered.push_back(q);
    return memory_kind::pinned;
  }

  /// Unregisters what push() registered; only after every copy from it has completed (callers wait first; the
  /// destructor waits for the slots' streams here as well).
  void release_registered() {
    if (registered.empty()) return;
    for (auto& s : slots) cudaStreamSynchronize(s->stream.get());
    for (void* q : registered) cudaHostUnregister(q);
    registered.clear();
  }

  void synchronize() {
    for (auto& s : slots) cuda_check(cudaStreamSynchronize(s->stream.get()), "cudaStreamSynchronize");
    release_registered();
  }
};

template <class Sample, class Count, class Weight>
streaming_histogram<Sample, Count, Weight>::streaming_histogram(const stream_bins<Sample>& bins, bool counts,
                                                                stream_values values, const streaming_options& opts)
    : impl_(std::make_unique<impl>(bins, counts, values, opts)) {}

template <class Sample, class Count, class Weight>
streaming_histogram<Sample, Count, Weight>::~streaming_histogram() = default;
template <class Sample, class Count, class Weight>
streaming_histogram<Sample, Count, Weight>::streaming_histogram(streaming_histogram&&) noexcept = default;
template <class Sample, class Count, class Weight>
streaming_histogram<Sample, Count, Weight>& streaming_histogram<Sample, Count, Weight>::operator=(
    streaming_histogram&&) noexcept = default;

template <class Sample, class Count, class Weight>
void streaming_histogram<Sample, Count, Weight>::push(const Sample* samples, std::int64_t n) {
  impl_->check_push(samples, nullptr, n, false);
  impl_->push(samples, nullptr, n);
}

template <class Sample, class Count, class Weight>
void streaming_histogram<Sample, Count, Weight>::push(const Sample* samples, const Weight* weights, std::int64_t n) {
  impl_->check_push(samples, weights, n, true);
  impl_->push(samples, weights, n);
}

template <class Sample, class Count, class Weight>
typename streaming_histogram<Sample, Count, Weight>::staging streaming_histogram<Sample, Count, Weight>::acquire() {
  impl& p = *impl_;
  if (p.finished) throw error("acquire after finish()");
  if (p.acquired) throw error("acquire twice without commit()");
  auto& s = *p.slots[p.next];
  cuda_check(cudaEventSynchronize(s.copied.get()), "cudaEventSynchronize");
  p.acquired = true;
  return {static_cast<Sample*>(s.pin_x.get()), static_cast<Weight*>(s.pin_w.get()), p.plan.chunk_elements};
}

template <class Sample, class Count, class Weight>
void streaming_histogram<Sample, Count, Weight>::commit(std::size_t n) {
  impl& p = *impl_;
  if (!p.acquired) throw error("commit without acquire()");
  if (n > p.plan.chunk_elements)
    throw error("commit: n (" + std::to_string(n) + ") exceeds the buffer's capacity (" +
                std::to_string(p.plan.chunk_elements) + ")");
  p.acquired = false;
  if (n == 0) return;
  auto& s = *p.slots[p.next];
  p.enqueue_chunk(p.next, static_cast<const Sample*>(s.pin_x.get()), static_cast<const Weight*>(s.pin_w.get()),
                  static_cast<std::int64_t>(n));
}

template <class Sample, class Count, class Weight>
void streaming_histogram<Sample, Count, Weight>::synchronize() {
  impl_->synchronize();
}

template <class Sample, class Count, class Weight>
typename streaming_histogram<Sample, Count, Weight>::result streaming_histogram<Sample, Count, Weight>::finish() {
  impl& p = *impl_;
  if (p.acquired) throw error("finish between acquire() and commit()");
  p.synchronize();
  p.finished = true;
  result r;
  const auto H = static_cast<std::size_t>(p.bins.num_bins);
  if (p.want_counts) {
    r.counts.resize(H);
    cuda_check(cudaMemcpy(r.counts.data(), p.counts.get(), H * sizeof(Count), cudaMemcpyDeviceToHost),
               "cudaMemcpy (counts to the host)");
  }
  if (p.values != stream_values::none) {
    r.values.resize(H);
    cuda_check(cudaMemcpy(r.values.data(), p.sums.get(), H * sizeof(Weight), cudaMemcpyDeviceToHost),
               "cudaMemcpy (values to the host)");
  }
  return r;
}

template <class Sample, class Count, class Weight>
void streaming_histogram<Sample, Count, Weight>::reset() {
  impl& p = *impl_;
  if (p.acquired) throw error("reset between acquire() and commit()");
  p.synchronize();
  p.fill_identity();
  p.finished = false;
  p.pushed = 0;
}

template <class Sample, class Count, class Weight>
const Count* streaming_histogram<Sample, Count, Weight>::device_counts() const {
  return static_cast<const Count*>(impl_->counts.get());
}
template <class Sample, class Count, class Weight>
const Weight* streaming_histogram<Sample, Count, Weight>::device_values() const {
  return static_cast<const Weight*>(impl_->sums.get());
}
template <class Sample, class Count, class Weight>
std::int64_t streaming_histogram<Sample, Count, Weight>::samples_pushed() const {
  return impl_->pushed;
}
template <class Sample, class Count, class Weight>
std::size_t streaming_histogram<Sample, Count, Weight>::chunk_capacity() const {
  return impl_->plan.chunk_elements;
}

#define GHIST_STREAMING_COUNTS(S, C)                \
  template class streaming_histogram<S, C, float>;  \
  template class streaming_histogram<S, C, double>;
#define GHIST_STREAMING(S) GHIST_STREAMING_COUNTS(S, std::uint32_t) GHIST_STREAMING_COUNTS(S, std::uint64_t)
GHIST_STREAMING(std::int32_t)
GHIST_STREAMING(std::uint32_t)
GHIST_STREAMING(std::int64_t)
GHIST_STREAMING(std::uint64_t)
GHIST_STREAMING(float)
GHIST_STREAMING(double)
#undef GHIST_STREAMING
#undef GHIST_STREAMING_COUNTS

}  // namespace ghist

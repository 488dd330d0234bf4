// ghist/detail/overwrite_gate.hpp: each stream's gate words and each launch's ticket.
#include "ghist/detail/overwrite_gate.hpp"

#include <atomic>
#include <map>
#include <mutex>

#include "ghist/detail/cuda_check.hpp"

namespace ghist::detail {
namespace {

constexpr int gates_per_slab = 256;  // 4 KiB: one cudaMalloc for a device's next 256 streams

struct device_gates {
  std::map<unsigned long long, unsigned long long*> by_stream;  // stream id -> its two words
  unsigned long long* slab = nullptr;                          // never freed: a launch may still use any gate
  int slab_used = gates_per_slab;
};

std::mutex gates_mutex;
std::map<int, device_gates> gates;  // by device

// Tickets: a counter through splitmix64's mixer (a bijection, so never the same twice), never 0.
std::atomic<unsigned long long> tickets_issued{0};

unsigned long long next_ticket() {
  for (;;) {
    unsigned long long z = tickets_issued.fetch_add(1, std::memory_order_relaxed) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    if (z != 0) return z;
  }
}

}  // namespace

overwrite_gate_words overwrite_gate_words_for(unsigned long long stream_id) {
  int device = 0;
  GHIST_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(gates_mutex);
  device_gates& mine = gates[device];
  const auto found = mine.by_stream.find(stream_id);
  if (found != mine.by_stream.end()) return {found->second, false, next_ticket()};
  if (mine.by_stream.size() >= static_cast<std::size_t>(overwrite_gate_max_streams)) return {};
  if (mine.slab_used == gates_per_slab) {
    void* slab = nullptr;
    GHIST_CUDA_CHECK(cudaMalloc(&slab, gates_per_slab * 2 * sizeof(unsigned long long)));
    mine.slab = static_cast<unsigned long long*>(slab);
    mine.slab_used = 0;
  }
  unsigned long long* words = mine.slab + 2 * mine.slab_used++;
  mine.by_stream.emplace(stream_id, words);
  return {words, true, next_ticket()};
}

}  // namespace ghist::detail

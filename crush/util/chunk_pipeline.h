// Chunked work on a few threads: the one thread pipeline of crushkit's tools
// and osdmap (the all-PG mapper, osdmap/model/pg_table.cc; crushtool --test,
// tools/crushtool/test_mapping.cc). Work is cut into chunks 0..n-1 that
// threads claim in increasing order from one shared counter, so uneven chunks
// balance out; each thread has a slot number for its own state (a CRUSH
// workspace, counters), so per-thread state needs no lock.
//
// Part of crush_util (crush/util/README.md), not of crush_core: the
// embeddable library starts no threads and crush_core's sources never include
// this header; it is not installed. Header-only, so that it adds no link
// dependency to the installed osdmap archive.
//
// Thread-safety: each call starts and joins its own threads; the callbacks
// run concurrently (ForEachChunk: work; ForEachChunkInOrder: produce, while
// consume runs on the calling thread) and must only share read-only state,
// per-slot state or the chunk's own output.
#ifndef CRUSHKIT_CRUSH_UTIL_CHUNK_PIPELINE_H_
#define CRUSHKIT_CRUSH_UTIL_CHUNK_PIPELINE_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace crushkit::util {

// std::thread::hardware_concurrency(), at least 1 (it may return 0) and at
// most 1024.
inline int HardwareThreads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return std::max(1, static_cast<int>(std::min(hw, 1024U)));
}

// Starts up to `count` threads running body(slot) for slots first,
// first + 1, ...; a thread the system refuses (resource limits) ends the
// starting, and the threads started so far carry on. Returns them.
template <typename Body>
std::vector<std::thread> StartThreads(int first, int count, Body& body) {
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(std::max(count, 0)));
  for (int slot = first; slot < first + count; ++slot) {
    try {
      threads.emplace_back(std::ref(body), slot);
    } catch (const std::system_error&) {
      break;
    }
  }
  return threads;
}

// Calls work(slot, chunk) once for every chunk in [0, chunks), on at most
// `threads` threads (at most one per chunk), the calling thread among them
// with slot 0; `slot` is in [0, threads) and no two threads share one.
// Returns when every chunk is done. Whatever the thread count, each chunk is
// worked on exactly once, so results written per chunk do not depend on it.
template <typename Work>
void ForEachChunk(std::uint64_t chunks, int threads, Work work) {
  std::atomic<std::uint64_t> next{0};
  auto body = [&](int slot) {
    for (std::uint64_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1)) work(slot, c);
  };
  const auto extra = std::min<std::uint64_t>(static_cast<std::uint64_t>(std::max(threads, 1)) - 1,
                                             chunks > 0 ? chunks - 1 : 0);
  std::vector<std::thread> running = StartThreads(1, static_cast<int>(extra), body);
  body(0);
  for (std::thread& t : running) t.join();
}

// The ordered pipeline: produce(slot, chunk, buffer) fills a buffer on one of
// `threads` worker threads (slots 0..threads-1), and consume(chunk, buffer)
// takes the buffers on the calling thread in chunk order 0, 1, 2, ... as soon
// as each is ready. Buffers are a ring of `window` (>= 1) default-constructed
// Buffer values reused from chunk to chunk (produce starts from whatever the
// last chunk in that ring slot left), and a worker waits while its chunk is
// `window` or more ahead of the consumer, so memory stays bounded whatever
// the number of chunks. The consumed sequence does not depend on `threads`.
// Returns false, having called neither callback, if no thread could be
// started (the caller then does the work itself).
template <typename Buffer, typename Produce, typename Consume>
bool ForEachChunkInOrder(std::uint64_t chunks, int threads, std::uint64_t window, Produce produce,
                         Consume consume) {
  window = std::max<std::uint64_t>(window, 1);

  struct Slot {
    Buffer buffer{};
    std::uint64_t ready = UINT64_MAX;  // the chunk whose output `buffer` holds
  };

  std::vector<Slot> ring(static_cast<std::size_t>(window));
  std::mutex mu;
  std::condition_variable ready_cv;  // a ring slot was filled
  std::condition_variable space_cv;  // the consumer took a ring slot
  std::uint64_t consumed = 0;        // chunks consumed (under mu)
  std::atomic<std::uint64_t> next{0};

  auto body = [&](int slot) {
    for (;;) {
      const std::uint64_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= chunks) return;
      {
        std::unique_lock lock(mu);
        space_cv.wait(lock, [&] { return c < consumed + window; });
      }
      Slot& s = ring[static_cast<std::size_t>(c % window)];
      produce(slot, c, s.buffer);
      {
        std::lock_guard lock(mu);
        s.ready = c;
      }
      ready_cv.notify_one();
    }
  };
  std::vector<std::thread> running = StartThreads(0, std::max(threads, 1), body);
  if (running.empty()) return false;

  for (std::uint64_t c = 0; c < chunks; ++c) {
    Slot& s = ring[static_cast<std::size_t>(c % window)];
    {
      std::unique_lock lock(mu);
      ready_cv.wait(lock, [&] { return s.ready == c; });
    }
    consume(c, s.buffer);
    {
      std::lock_guard lock(mu);
      ++consumed;
    }
    space_cv.notify_all();
  }
  for (std::thread& t : running) t.join();
  return true;
}

}  // namespace crushkit::util

#endif  // CRUSHKIT_CRUSH_UTIL_CHUNK_PIPELINE_H_

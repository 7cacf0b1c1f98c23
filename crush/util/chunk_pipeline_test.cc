#include "crush/util/chunk_pipeline.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace crushkit::util {
namespace {

TEST(ChunkPipelineTest, ForEachChunkWorksOnEveryChunkOnce) {
  for (int threads : {1, 2, 3, 8}) {
    for (std::uint64_t chunks : {0, 1, 2, 7, 100}) {
      std::vector<std::atomic<int>> seen(chunks);
      ForEachChunk(chunks, threads, [&](int slot, std::uint64_t c) {
        EXPECT_GE(slot, 0);
        EXPECT_LT(slot, threads);
        seen[c].fetch_add(1);
      });
      for (std::uint64_t c = 0; c < chunks; ++c) {
        EXPECT_EQ(seen[c].load(), 1) << "chunk " << c << " of " << chunks << ", " << threads;
      }
    }
  }
}

TEST(ChunkPipelineTest, ForEachChunkGivesEachSlotToOneThread) {
  std::mutex mu;
  std::vector<std::set<std::thread::id>> owners(4);
  ForEachChunk(400, 4, [&](int slot, std::uint64_t) {
    std::lock_guard lock(mu);
    owners[static_cast<std::size_t>(slot)].insert(std::this_thread::get_id());
  });
  // Slot 0 is the calling thread (if it got a chunk before the others took
  // them all).
  for (const std::thread::id id : owners[0]) EXPECT_EQ(id, std::this_thread::get_id());
  for (const auto& o : owners) EXPECT_LE(o.size(), 1U);
}

TEST(ChunkPipelineTest, ForEachChunkInOrderConsumesInChunkOrder) {
  for (int threads : {1, 2, 3, 5}) {
    for (std::uint64_t window : {1, 2, 4, 20}) {
      std::string consumed;
      std::vector<std::uint64_t> order;
      const bool ran = ForEachChunkInOrder<std::string>(
          50, threads, window,
          [&](int slot, std::uint64_t c, std::string& buffer) {
            EXPECT_GE(slot, 0);
            EXPECT_LT(slot, threads);
            buffer = std::to_string(c) + ";";
          },
          [&](std::uint64_t c, const std::string& buffer) {
            order.push_back(c);
            consumed += buffer;
          });
      ASSERT_TRUE(ran);
      std::string expected;
      for (int c = 0; c < 50; ++c) expected += std::to_string(c) + ";";
      EXPECT_EQ(consumed, expected) << threads << " threads, window " << window;
      ASSERT_EQ(order.size(), 50U);
      for (std::uint64_t c = 0; c < 50; ++c) EXPECT_EQ(order[c], c);
    }
  }
}

TEST(ChunkPipelineTest, ForEachChunkInOrderKeepsProducersWithinTheWindow) {
  constexpr std::uint64_t kWindow = 3;
  std::atomic<std::uint64_t> consumed{0};
  std::atomic<std::uint64_t> furthest_ahead{0};
  ForEachChunkInOrder<int>(
      200, 4, kWindow,
      [&](int, std::uint64_t c, int& buffer) {
        const std::uint64_t ahead = c - consumed.load();
        std::uint64_t prev = furthest_ahead.load();
        while (ahead > prev && !furthest_ahead.compare_exchange_weak(prev, ahead)) {
        }
        buffer = static_cast<int>(c);
      },
      [&](std::uint64_t c, const int& buffer) {
        EXPECT_EQ(static_cast<std::uint64_t>(buffer), c);
        consumed.store(c + 1);
      });
  EXPECT_LT(furthest_ahead.load(), kWindow);
}

TEST(ChunkPipelineTest, ForEachChunkInOrderWithNoChunksCallsNothing) {
  int calls = 0;
  EXPECT_TRUE(ForEachChunkInOrder<int>(
      0, 3, 4, [&](int, std::uint64_t, int&) { ++calls; },
      [&](std::uint64_t, const int&) { ++calls; }));
  EXPECT_EQ(calls, 0);
}

TEST(ChunkPipelineTest, HardwareThreadsIsAtLeastOne) { EXPECT_GE(HardwareThreads(), 1); }

}  // namespace
}  // namespace crushkit::util

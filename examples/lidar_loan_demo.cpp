// SPDX-License-Identifier: MIT
// lidar_loan_demo: 100 KB point clouds through the bus without a copy and without the heap.
//
// Each scan (PointCloud, 98,316 bytes) is built in place in a block of the bus's loan pool
// (8 blocks, inside the bus object); a ring slot carries only a 16-byte handle, so a slot takes
// 56 bytes on x86-64 instead of 98 KB.
//
// - Three driver threads publish 20 scans/s each: "front" at MEDIUM, "left" and "right" at LOW,
//   each with its own sender id. The lidars are phase-locked a third of a period apart (one
//   trigger), so a scan arrives every 16.7 ms in the order front, left, right: every count
//   printed below is exact.
// - Two subscribers get every scan as the same `const PointCloud&` in its pool block: a planner,
//   which keeps the latest scan as its map (bus.Retain; assigning the new handle drops the old
//   one), and an obstacle check, which verifies every point.
// - Phase 1 (0.5 s): the consumer keeps up; every scan is delivered.
// - Phase 2 (0.4 s): the planner stalls (the consumer does not run) and the pool fills. The
//   pool's admission refuses LOW loans from 5 blocks in use and MEDIUM loans from 7, counted and
//   reported to the error callback as kLoanRefused; a driver drops a refused scan (the next one
//   is 50 ms away). A watchdog then sends an emergency stop (a small inline HIGH message) and a
//   HIGH "safety scan", whose loan gets the one block the pool keeps for HIGH. When the consumer
//   resumes, both are dispatched before the queued scans.
// - Phase 3 (0.2 s): back to normal. Then the planner drops its map and every block is back.
// operator new is counted: nothing is allocated from the first loan to the end.
// Expected output ends with: lidar_loan_demo: OK scans=49 estops=1 heap=0
#include <mccc/mccc.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <thread>
#include <utility>
#include <variant>

// ---------------------------------------------------------------------------------------------
// Counting operator new. libstdc++'s array and nothrow forms call these two, so replacing them
// (and the deletes that match) sees every C++ allocation of the program.
// ---------------------------------------------------------------------------------------------
namespace {
// relaxed (both): a flag and a tally read by the main thread after the other threads are done.
std::atomic<bool> g_counting_allocations{false};
std::atomic<uint64_t> g_allocations{0U};

void CountAllocation() noexcept {
  if (g_counting_allocations.load(std::memory_order_relaxed)) {
    g_allocations.fetch_add(1U, std::memory_order_relaxed);
  }
}
}  // namespace

// These replacements allocate with malloc and free with free, on purpose; GCC cannot see that
// both sides are replaced when it inlines them.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t size) {
  CountAllocation();
  void* memory = std::malloc(size == 0U ? 1U : size);
  if (memory == nullptr) {
    throw std::bad_alloc();
  }
  return memory;
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  CountAllocation();
  const auto align = static_cast<std::size_t>(alignment);
  void* memory = std::aligned_alloc(align, ((size == 0U ? 1U : size) + align - 1U) / align * align);
  if (memory == nullptr) {
    throw std::bad_alloc();
  }
  return memory;
}
void operator delete(void* memory) noexcept {
  std::free(memory);
}
void operator delete(void* memory, std::size_t /*size*/) noexcept {
  std::free(memory);
}
void operator delete(void* memory, std::align_val_t /*alignment*/) noexcept {
  std::free(memory);
}
void operator delete(void* memory, std::size_t /*size*/, std::align_val_t /*alignment*/) noexcept {
  std::free(memory);
}

namespace {

// ---------------------------------------------------------------------------------------------
// Messages and the bus
// ---------------------------------------------------------------------------------------------
constexpr uint32_t kPointsPerScan = 8192U;

struct PointCloud {
  uint32_t sensor;    // the sender id of the lidar (the watchdog's for a safety scan)
  uint32_t sequence;  // per sensor, counting the scans it offered
  uint32_t count;
  float xyz[3U * kPointsPerScan];  // left uninitialised by Loan: the driver writes every point
};
struct EmergencyStop {  // small: travels inline, in the slot
  uint32_t source;
  uint32_t reason;
};

struct LidarTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 256U;  // a slot holds a handle, not a scan
  using LoanPools = mccc::LoanPools<mccc::PoolOf<PointCloud, 8U>>;
};
using Bus = mccc::AsyncBus<std::variant<EmergencyStop, mccc::Loaned<PointCloud>>, LidarTraits>;
using Pool = Bus::LoanPoolOf<PointCloud>;
// The same payload with the scan inline, only to show what its slot would weigh.
struct InlineTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 256U;
};
using InlineBus = mccc::AsyncBus<std::variant<EmergencyStop, PointCloud>, InlineTraits>;

struct Lidar {  // front, left, right
  uint32_t sender;
  mccc::MessagePriority priority;
};
constexpr uint32_t kLidarCount = 3U;
constexpr Lidar kLidars[kLidarCount] = {{1U, mccc::MessagePriority::kMedium},
                                        {2U, mccc::MessagePriority::kLow},
                                        {3U, mccc::MessagePriority::kLow}};
constexpr uint32_t kWatchdogSender = 9U;
constexpr uint32_t kReasonPlannerSilent = 1U;

constexpr uint32_t kPhaseCount = 3U;
constexpr uint32_t kRoundsPerPhase[kPhaseCount] = {10U, 8U, 4U};  // scans per lidar
constexpr std::chrono::microseconds kScanPeriod{50000};           // 20 Hz per lidar
constexpr std::chrono::microseconds kTurnPeriod = kScanPeriod / kLidarCount;

constexpr uint32_t FirstTurnOf(uint32_t phase) {
  uint32_t turns = 0U;
  for (uint32_t p = 0U; p < phase; ++p) {
    turns += kRoundsPerPhase[p] * kLidarCount;
  }
  return turns;
}

float PointValue(uint32_t point, uint32_t axis, uint32_t sensor, uint32_t sequence) {
  // Distinct per point, axis, sensor and scan, so a mixed-up or torn block shows.
  return static_cast<float>(point) * 0.01F + static_cast<float>(axis * 1000U + sensor * 100U) +
         static_cast<float>(sequence % 64U);
}

void FillScan(PointCloud& cloud, uint32_t sensor, uint32_t sequence) {
  cloud.sensor = sensor;
  cloud.sequence = sequence;
  cloud.count = kPointsPerScan;
  for (uint32_t point = 0U; point < kPointsPerScan; ++point) {
    for (uint32_t axis = 0U; axis < 3U; ++axis) {
      cloud.xyz[3U * point + axis] = PointValue(point, axis, sensor, sequence);
    }
  }
}

bool ScanIsIntact(const PointCloud& cloud) {
  if (cloud.count != kPointsPerScan) {
    return false;
  }
  for (uint32_t point = 0U; point < kPointsPerScan; ++point) {
    for (uint32_t axis = 0U; axis < 3U; ++axis) {
      if (cloud.xyz[3U * point + axis] != PointValue(point, axis, cloud.sensor, cloud.sequence)) {
        return false;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Producers: three lidar drivers and a watchdog
// ---------------------------------------------------------------------------------------------
struct PhaseCounts {
  uint32_t offered = 0U;
  uint32_t published = 0U;
  uint32_t refused_by_pool[mccc::kPriorityCount] = {};  // LOW, MEDIUM, HIGH
  uint32_t refused_by_ring = 0U;
};

/// The trigger the lidars share. `next_turn` is a token: only the driver whose turn it is
/// publishes and writes `counts`, so the counts need no atomics.
struct Schedule {
  std::atomic<uint32_t> phase{0U};  // 1..kPhaseCount once started, set by main
  std::atomic<std::chrono::steady_clock::rep> phase_start{0};
  std::atomic<uint32_t> next_turn{0U};
  PhaseCounts counts[kPhaseCount];
};

void OfferScan(Bus& bus, const Lidar& lidar, uint32_t sequence, PhaseCounts& counts) {
  ++counts.offered;
  mccc::MessageLoan<PointCloud> loan = bus.Loan<PointCloud>(lidar.priority);
  if (!loan) {
    // The pool is at this priority's limit. A driver drops the scan: the next one is newer.
    ++counts.refused_by_pool[static_cast<std::size_t>(lidar.priority)];
    return;
  }
  FillScan(*loan, lidar.sender, sequence);  // in place, in the pool block
  if (bus.Publish(std::move(loan), lidar.sender)) {
    ++counts.published;
  } else {
    ++counts.refused_by_ring;  // the loan is still ours; leaving scope returns its block
  }
}

void RunLidar(Bus& bus, Schedule& schedule, uint32_t index) {
  const Lidar& lidar = kLidars[index];
  uint32_t sequence = 0U;
  for (uint32_t phase = 0U; phase < kPhaseCount; ++phase) {
    // acquire: pairs with main's release store of the phase (phase_start is set before it).
    while (schedule.phase.load(std::memory_order_acquire) < phase + 1U) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    // relaxed: ordered by the acquire load of the phase above.
    const std::chrono::steady_clock::time_point start{
        std::chrono::steady_clock::duration{schedule.phase_start.load(std::memory_order_relaxed)}};
    for (uint32_t round = 0U; round < kRoundsPerPhase[phase]; ++round) {
      const uint32_t turn_in_phase = round * kLidarCount + index;
      std::this_thread::sleep_until(start + kTurnPeriod * static_cast<int>(turn_in_phase));
      const uint32_t turn = FirstTurnOf(phase) + turn_in_phase;
      // acquire: pairs with the previous driver's release store of the token (its counts).
      while (schedule.next_turn.load(std::memory_order_acquire) != turn) {
        std::this_thread::yield();
      }
      OfferScan(bus, lidar, sequence++, schedule.counts[phase]);
      // release: hands the counts to the next driver and to main.
      schedule.next_turn.store(turn + 1U, std::memory_order_release);
    }
  }
}

/// What the watchdog saw when the planner had been silent for the whole of phase 2.
struct WatchdogReport {
  bool estop_published = false;
  uint32_t in_use_before_safety_loan = 0U;
  bool safety_loan_granted = false;
  bool safety_scan_published = false;
  uint32_t in_use_after_safety_loan = 0U;
  std::atomic<bool> done{false};
};

void RunWatchdog(Bus& bus, Schedule& schedule, WatchdogReport& report) {
  constexpr uint32_t kStallEnd = FirstTurnOf(2U);
  // acquire: pairs with the last phase-2 driver's release store of the token.
  while (schedule.next_turn.load(std::memory_order_acquire) != kStallEnd) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // The emergency stop: inline, HIGH, in the HIGH ring; neither the pool nor the LOW/MEDIUM
  // backlog can refuse it.
  report.estop_published =
      bus.PublishWithPriority(EmergencyStop{kWatchdogSender, kReasonPlannerSilent}, kWatchdogSender,
                              mccc::MessagePriority::kHigh);
  // The safety scan: a HIGH loan, granted from the block only HIGH may take.
  report.in_use_before_safety_loan = bus.GetLoanStatistics<PointCloud>().in_use;
  mccc::MessageLoan<PointCloud> loan = bus.Loan<PointCloud>(mccc::MessagePriority::kHigh);
  report.safety_loan_granted = static_cast<bool>(loan);
  if (loan) {
    FillScan(*loan, kWatchdogSender, 0U);
    report.in_use_after_safety_loan = bus.GetLoanStatistics<PointCloud>().in_use;
    report.safety_scan_published = bus.Publish(std::move(loan), kWatchdogSender);  // at HIGH
  }
  // release: hands the report to main.
  report.done.store(true, std::memory_order_release);
}

// ---------------------------------------------------------------------------------------------
// The consumer side (main thread)
// ---------------------------------------------------------------------------------------------
std::atomic<uint32_t> g_loan_refused_reports{0U};
std::atomic<uint32_t> g_other_error_reports{0U};

void OnBusError(mccc::BusError error, uint64_t /*msg_id*/) {
  // relaxed (both): tallies read after the producers are joined.
  if (error == mccc::BusError::kLoanRefused) {
    g_loan_refused_reports.fetch_add(1U, std::memory_order_relaxed);
  } else {
    g_other_error_reports.fetch_add(1U, std::memory_order_relaxed);
  }
}

struct Consumer {
  uint32_t phase = 0U;  // index of the phase whose scans are being delivered
  uint32_t delivered[kPhaseCount] = {};
  uint32_t damaged = 0U;          // a point, the count or the per-sensor order wrong
  uint32_t shared_checks = 0U;    // scans whose two subscribers compared addresses
  uint32_t not_shared = 0U;       // ... and saw different ones
  uint32_t retain_failures = 0U;  // Retain returned an empty handle
  uint32_t next_sequence[kLidarCount + 1U] = {};
  mccc::Retained<PointCloud> map;  // the planner's map: the latest lidar scan
  // The two subscribers of a scan compare the address they were given.
  uint64_t planner_msg_id = 0U;
  const PointCloud* planner_view = nullptr;
  uint64_t checker_msg_id = 0U;
  const PointCloud* checker_view = nullptr;
  // Dispatch order after the stall, by msg_id (ids count up in delivery order).
  uint64_t last_msg_id = 0U;
  uint64_t resume_base = 0U;
  uint64_t estop_id = 0U;
  uint64_t safety_scan_id = 0U;
  uint64_t first_queued_scan_id = 0U;
  uint32_t estops = 0U;

  void CompareViews(uint64_t msg_id, const PointCloud* view, uint64_t other_id,
                    const PointCloud* other_view) {
    if (msg_id == other_id) {  // the second subscriber of this message
      ++shared_checks;
      if (view != other_view) {
        ++not_shared;
      }
    }
  }
};

void Subscribe(Bus& bus, Consumer& consumer) {
  // The planner: keeps the newest lidar scan as its map; the old map's block goes back to the
  // pool when the assignment drops the old handle.
  bus.Subscribe<PointCloud>([&bus, &consumer](const PointCloud& cloud,
                                              const mccc::MessageHeader& header) {
    consumer.last_msg_id = header.msg_id;
    consumer.planner_msg_id = header.msg_id;
    consumer.planner_view = &cloud;
    consumer.CompareViews(header.msg_id, &cloud, consumer.checker_msg_id, consumer.checker_view);
    if (header.sender_id == kWatchdogSender) {
      consumer.safety_scan_id = header.msg_id;
      return;
    }
    consumer.map = bus.Retain(cloud);
    if (!consumer.map) {
      ++consumer.retain_failures;
    }
    ++consumer.delivered[consumer.phase];
    if (consumer.phase == 1U && consumer.first_queued_scan_id == 0U) {
      consumer.first_queued_scan_id = header.msg_id;
    }
  });
  // The obstacle check: reads every point, and the per-sensor order.
  bus.Subscribe<PointCloud>([&consumer](const PointCloud& cloud,
                                        const mccc::MessageHeader& header) {
    consumer.checker_msg_id = header.msg_id;
    consumer.checker_view = &cloud;
    consumer.CompareViews(header.msg_id, &cloud, consumer.planner_msg_id, consumer.planner_view);
    if (!ScanIsIntact(cloud) || cloud.sensor != header.sender_id) {
      ++consumer.damaged;
      return;
    }
    if (cloud.sensor >= 1U && cloud.sensor <= kLidarCount) {
      uint32_t& expected = consumer.next_sequence[cloud.sensor];
      if (cloud.sequence < expected) {
        ++consumer.damaged;  // older than one already delivered: reordered or repeated
      }
      expected = cloud.sequence + 1U;  // refused scans leave gaps
    }
  });
  bus.Subscribe<EmergencyStop>(
      [&consumer](const EmergencyStop& stop, const mccc::MessageHeader& header) {
        consumer.last_msg_id = header.msg_id;
        consumer.estop_id = header.msg_id;
        if (stop.source == kWatchdogSender && stop.reason == kReasonPlannerSilent) {
          ++consumer.estops;
        }
      });
}

void StartPhase(Schedule& schedule, uint32_t phase) {
  // relaxed: published by the release store of the phase below.
  schedule.phase_start.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                             std::memory_order_relaxed);
  // release: pairs with the drivers' acquire loads of the phase.
  schedule.phase.store(phase, std::memory_order_release);
}

/// Dispatches until every turn of `phase` is taken and every scan it published is delivered.
void DeliverPhase(Bus& bus, Schedule& schedule, const Consumer& consumer, uint32_t phase) {
  const uint32_t end_turn = FirstTurnOf(phase + 1U);
  for (;;) {
    if (bus.ProcessBatch() != 0U) {
      continue;
    }
    // acquire: pairs with the drivers' release stores of the token, so their counts are read
    // only after the last of them.
    if (schedule.next_turn.load(std::memory_order_acquire) == end_turn &&
        consumer.delivered[phase] == schedule.counts[phase].published) {
      return;
    }
    bus.WaitForMessages(1000U);
  }
}

uint32_t BlocksInUse(const Bus& bus) {
  return bus.GetLoanStatistics<PointCloud>().in_use;
}

bool PrintPhase(const char* title, const PhaseCounts& counts, uint32_t delivered, uint32_t in_use,
                const char* in_use_note) {
  const uint32_t refused =
      counts.refused_by_pool[0] + counts.refused_by_pool[1] + counts.refused_by_pool[2];
  std::printf(
      "%s: %u scans offered, %u published, %u refused by the pool (LOW %u, MEDIUM %u), "
      "%u delivered, blocks in use %u%s\n",
      title, counts.offered, counts.published, refused, counts.refused_by_pool[0],
      counts.refused_by_pool[1], delivered, in_use, in_use_note);
  return counts.offered == counts.published + refused && counts.refused_by_ring == 0U &&
         counts.refused_by_pool[2] == 0U;
}

}  // namespace

int main() {
  auto bus = std::make_unique<Bus>();
  bus->SetErrorCallback(&OnBusError);
  Consumer consumer;
  Subscribe(*bus, consumer);
  Schedule schedule;
  WatchdogReport watchdog;

  std::printf(
      "lidar_loan_demo: 3 lidars x 20 Hz, %zu-byte scans by loan, ring slot %zu B (inline the "
      "scan would make it %zu B), pool of %u blocks x %zu B, bus object %zu B\n",
      sizeof(PointCloud), Bus::SlotBytes(), InlineBus::SlotBytes(), Pool::kCapacity,
      Pool::BlockBytes(), sizeof(Bus));
  std::printf(
      "pool admission: LOW below %u blocks in use, MEDIUM below %u, HIGH up to %u (%u kept "
      "for HIGH)\n",
      Pool::Admission::kLowLimit, Pool::Admission::kMediumLimit, Pool::Admission::kHighLimit,
      Pool::Admission::kHighReserve);

  std::thread lidars[kLidarCount];
  for (uint32_t i = 0U; i < kLidarCount; ++i) {
    lidars[i] = std::thread([&bus, &schedule, i] { RunLidar(*bus, schedule, i); });
  }
  std::thread watchdog_thread(
      [&bus, &schedule, &watchdog] { RunWatchdog(*bus, schedule, watchdog); });
  // From here on (the bus and the threads exist) nothing may allocate.
  g_counting_allocations.store(true, std::memory_order_relaxed);

  bool ok = true;

  // Phase 1: the consumer keeps up.
  consumer.phase = 0U;
  StartPhase(schedule, 1U);
  DeliverPhase(*bus, schedule, consumer, 0U);
  const uint32_t in_use_after_phase1 = BlocksInUse(*bus);
  ok &= PrintPhase("phase 1 (consumer keeping up)", schedule.counts[0], consumer.delivered[0],
                   in_use_after_phase1, " (the planner's map)");
  ok &= schedule.counts[0].published == schedule.counts[0].offered && in_use_after_phase1 == 1U;

  // Phase 2: the planner stalls; the consumer does not run until the watchdog has acted.
  consumer.phase = 1U;
  StartPhase(schedule, 2U);
  // acquire: pairs with the watchdog's release store (its report, and every phase-2 count
  // through the token it waited for).
  while (!watchdog.done.load(std::memory_order_acquire)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ok &= PrintPhase("phase 2 (planner stalled)", schedule.counts[1], consumer.delivered[1],
                   watchdog.in_use_before_safety_loan, " of 8");
  std::printf(
      "phase 2: watchdog: e-stop %s (HIGH, inline), safety scan loaned at HIGH with %u of 8 "
      "blocks in use: %s, %u of 8 in use\n",
      watchdog.estop_published ? "published" : "REFUSED", watchdog.in_use_before_safety_loan,
      watchdog.safety_loan_granted ? "granted from the HIGH reserve" : "REFUSED",
      watchdog.in_use_after_safety_loan);
  ok &= watchdog.estop_published && watchdog.safety_loan_granted &&
        watchdog.safety_scan_published &&
        watchdog.in_use_before_safety_loan == Pool::Admission::kMediumLimit &&
        watchdog.in_use_after_safety_loan == Pool::kCapacity;

  consumer.resume_base = consumer.last_msg_id;
  DeliverPhase(*bus, schedule, consumer, 1U);
  while (consumer.estops == 0U || consumer.safety_scan_id == 0U) {  // both HIGH: already there
    bus->ProcessBatch();
  }
  const uint64_t estop_position = consumer.estop_id - consumer.resume_base;
  const uint64_t safety_position = consumer.safety_scan_id - consumer.resume_base;
  const bool high_first = estop_position == 1U && safety_position == 2U &&
                          consumer.first_queued_scan_id == consumer.resume_base + 3U;
  const uint32_t in_use_after_resume = BlocksInUse(*bus);
  const uint64_t last_position = consumer.last_msg_id - consumer.resume_base;
  std::printf(
      "phase 2 (planner resumed): dispatched the e-stop as #%llu, the safety scan as #%llu, the "
      "%u queued scans as #%llu-#%llu, blocks in use %u\n",
      static_cast<unsigned long long>(estop_position),
      static_cast<unsigned long long>(safety_position), consumer.delivered[1],
      static_cast<unsigned long long>(consumer.first_queued_scan_id - consumer.resume_base),
      static_cast<unsigned long long>(last_position), in_use_after_resume);
  ok &= high_first && last_position == 2U + consumer.delivered[1] && in_use_after_resume == 1U;

  // Phase 3: back to normal.
  consumer.phase = 2U;
  StartPhase(schedule, 3U);
  DeliverPhase(*bus, schedule, consumer, 2U);
  const uint32_t in_use_after_phase3 = BlocksInUse(*bus);
  ok &= PrintPhase("phase 3 (recovered)", schedule.counts[2], consumer.delivered[2],
                   in_use_after_phase3, " (the planner's map)");
  ok &= schedule.counts[2].published == schedule.counts[2].offered && in_use_after_phase3 == 1U;

  // The planner lets go of its map: the last block returns.
  consumer.map.Reset();
  const uint64_t allocations = g_allocations.load(std::memory_order_relaxed);
  g_counting_allocations.store(false, std::memory_order_relaxed);
  for (std::thread& lidar : lidars) {
    lidar.join();
  }
  watchdog_thread.join();

  const mccc::LoanPoolStatistics pool = bus->GetLoanStatistics<PointCloud>();
  const mccc::BusStatisticsSnapshot totals = bus->GetStatistics();
  const uint32_t loan_refused_reports = g_loan_refused_reports.load(std::memory_order_relaxed);
  const uint32_t other_error_reports = g_other_error_reports.load(std::memory_order_relaxed);
  std::printf(
      "pool: %llu loans granted, refused LOW %llu / MEDIUM %llu / HIGH %llu, high water %u of %u, "
      "blocks in use at the end %u\n",
      static_cast<unsigned long long>(pool.loans_granted),
      static_cast<unsigned long long>(pool.low_priority_refused),
      static_cast<unsigned long long>(pool.medium_priority_refused),
      static_cast<unsigned long long>(pool.high_priority_refused), pool.high_water, pool.capacity,
      totals.loan_blocks_in_use);
  std::printf("error callback: %u kLoanRefused, %u other errors\n", loan_refused_reports,
              other_error_reports);
  uint32_t published = 0U;
  uint32_t refused = 0U;
  uint32_t delivered = 0U;
  for (uint32_t phase = 0U; phase < kPhaseCount; ++phase) {
    published += schedule.counts[phase].published;
    refused +=
        schedule.counts[phase].refused_by_pool[0] + schedule.counts[phase].refused_by_pool[1];
    delivered += consumer.delivered[phase];
  }
  const uint32_t scans = published + 1U;  // and the safety scan
  const bool shared = consumer.shared_checks == scans && consumer.not_shared == 0U;
  std::printf(
      "subscribers: 2 per scan, same block (no copy): %s (%u of %u scans), every point intact "
      "and in order per lidar: %s, planner retained every scan: %s\n",
      shared ? "yes" : "NO", consumer.shared_checks - consumer.not_shared, scans,
      consumer.damaged == 0U ? "yes" : "NO", consumer.retain_failures == 0U ? "yes" : "NO");
  std::printf("heap: %llu operator new calls from the first loan to the end\n",
              static_cast<unsigned long long>(allocations));

  ok &= delivered == published && consumer.damaged == 0U && shared &&
        consumer.retain_failures == 0U && consumer.estops == 1U;
  ok &= pool.loans_granted == scans &&
        pool.low_priority_refused + pool.medium_priority_refused == refused &&
        pool.high_priority_refused == 0U && pool.high_water == Pool::kCapacity &&
        pool.in_use == 0U && totals.loan_blocks_in_use == 0U &&
        totals.loans_granted == pool.loans_granted;
  ok &= loan_refused_reports == refused && other_error_reports == 0U && allocations == 0U;
  std::printf("lidar_loan_demo: %s scans=%u estops=%u heap=%llu\n", ok ? "OK" : "FAILED", scans,
              consumer.estops, static_cast<unsigned long long>(allocations));
  return ok ? 0 : 1;
}

// SPDX-License-Identifier: MIT
// A consumer task that sleeps on an RTOS semaphore while the bus is empty, woken by whichever
// task or interrupt handler publishes next: the bus traits' ConsumerWait hook.
//
// The hook is written against FreeRTOS's API names (xSemaphoreTake, xSemaphoreGive,
// xSemaphoreGiveFromISR, portYIELD_FROM_ISR, xPortIsInsideInterrupt). So that this example
// builds and runs anywhere, the `rtos` namespace below stubs those calls on the host; on a
// FreeRTOS target, delete the stubs and include "FreeRTOS.h" and "semphr.h" instead.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>

#include "mccc/mccc.hpp"

// ---- Host stubs of the FreeRTOS calls the hook uses (not needed on a FreeRTOS target) -------
namespace rtos {
using BaseType_t = long;
using TickType_t = uint32_t;
constexpr BaseType_t pdFALSE = 0;
constexpr BaseType_t pdTRUE = 1;
struct StaticSemaphore {
  std::mutex mutex;
  std::condition_variable cv;
  bool given = false;
};
using SemaphoreHandle_t = StaticSemaphore*;
constexpr TickType_t pdMS_TO_TICKS(uint32_t ms) {
  return ms;
}  // a 1 kHz tick
BaseType_t xSemaphoreTake(SemaphoreHandle_t s, TickType_t ticks) {
  std::unique_lock<std::mutex> lock(s->mutex);
  const bool taken =
      s->cv.wait_for(lock, std::chrono::milliseconds(ticks), [s] { return s->given; });
  s->given = false;
  return taken ? pdTRUE : pdFALSE;
}
BaseType_t xSemaphoreGive(SemaphoreHandle_t s) {
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    s->given = true;
  }
  s->cv.notify_one();
  return pdTRUE;
}
BaseType_t xSemaphoreGiveFromISR(SemaphoreHandle_t s, BaseType_t* higher_priority_woken) {
  *higher_priority_woken = pdTRUE;
  return xSemaphoreGive(s);
}
void portYIELD_FROM_ISR(BaseType_t) {}
BaseType_t xPortIsInsideInterrupt() {
  return pdFALSE;
}  // the host has no interrupts
}  // namespace rtos
// ---------------------------------------------------------------------------------------------

namespace {

rtos::StaticSemaphore g_semaphore_storage;
const rtos::SemaphoreHandle_t g_consumer_semaphore = &g_semaphore_storage;
std::atomic<uint32_t> g_waits_timed_out{0U};

/// The hook: Wait takes the semaphore (with the bus's timeout), Notify gives it. A binary
/// semaphore latches a give that comes before the take, which the bus's handshake requires.
struct FreeRtosConsumerWait {
  static void Wait(uint32_t timeout_us) noexcept {
    if (rtos::xSemaphoreTake(g_consumer_semaphore, rtos::pdMS_TO_TICKS(timeout_us / 1000U) + 1U) ==
        rtos::pdFALSE) {
      g_waits_timed_out.fetch_add(1U, std::memory_order_relaxed);
    }
  }
  static void Notify() noexcept {
    if (rtos::xPortIsInsideInterrupt() != rtos::pdFALSE) {
      rtos::BaseType_t woken = rtos::pdFALSE;
      rtos::xSemaphoreGiveFromISR(g_consumer_semaphore, &woken);
      rtos::portYIELD_FROM_ISR(woken);
    } else {
      rtos::xSemaphoreGive(g_consumer_semaphore);
    }
  }
};

struct Telemetry {
  uint32_t seq;
  int32_t value;
};
using Payload = std::variant<Telemetry>;

struct RtosTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 256U;
  using ConsumerWait = FreeRtosConsumerWait;
};
using Bus = mccc::AsyncBus<Payload, RtosTraits>;

}  // namespace

int main() {
  auto bus = std::make_unique<Bus>();
  constexpr uint32_t kMessages = 500U;
  std::atomic<uint32_t> delivered{0U};
  int64_t sum = 0;
  const mccc::SubscriptionHandle handle = bus->Subscribe<Telemetry>([&](const Telemetry& t) {
    sum += t.value;
    delivered.fetch_add(1U, std::memory_order_release);
  });

  // The consumer task: sleeps on the semaphore whenever the bus is empty (1 s timeout).
  std::thread consumer_task([&] {
    while (delivered.load(std::memory_order_acquire) < kMessages) {
      if (bus->WaitForMessages(1000000U)) {
        bus->ProcessBatch();
      }
    }
  });
  // A sensor task publishing one sample at a time, letting the consumer fall asleep between.
  std::thread sensor_task([&] {
    for (uint32_t i = 0U; i < kMessages; ++i) {
      while (delivered.load(std::memory_order_acquire) < i) {
        std::this_thread::yield();
      }
      bus->Publish(Telemetry{i, static_cast<int32_t>(i % 7U)}, 1U);
    }
  });
  sensor_task.join();
  consumer_task.join();
  bus->Unsubscribe(handle);

  std::printf("delivered %u of %u, sum %lld, waits ended by timeout: %u\n", delivered.load(),
              kMessages, static_cast<long long>(sum), g_waits_timed_out.load());
  return delivered.load() == kMessages && g_waits_timed_out.load() == 0U ? 0 : 1;
}

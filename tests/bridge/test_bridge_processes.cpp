// SPDX-License-Identifier: MIT
// The bridge between real processes: bridge_peer is started with fork + exec (an importer, an
// exporter, and in one test a fault-injecting proxy between them) over ipc:// and
// tcp://127.0.0.1 (loopback only). Every process has a time limit and is killed if it overruns.
// The outcomes do not depend on timing: where a test needs a queue to overflow, a peer is made
// to overflow it (see the options in bridge_peer.cpp), and every exporter stops only once the
// importer confirmed that it read both ends of stream, so that the counts are exact.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

/// A child process running bridge_peer, its standard output read line by line; Tell() writes a
/// line to its standard input.
class Peer {
 public:
  explicit Peer(const std::vector<std::string>& args) {
    int fds[2] = {-1, -1};
    int input[2] = {-1, -1};
    if (pipe(fds) != 0) {
      return;
    }
    if (pipe(input) != 0) {
      close(fds[0]);
      close(fds[1]);
      return;
    }
    std::vector<std::string> argv_strings;
    argv_strings.push_back(MCCC_BRIDGE_PEER);
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : argv_strings) {
      argv.push_back(s.data());
    }
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      dup2(input[0], STDIN_FILENO);
      close(fds[0]);
      close(fds[1]);
      close(input[0]);
      close(input[1]);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(fds[1]);
    close(input[0]);
    fd_ = fds[0];
    input_fd_ = input[1];
  }
  ~Peer() {
    Kill();
    if (fd_ >= 0) {
      close(fd_);
    }
    if (input_fd_ >= 0) {
      close(input_fd_);
    }
  }
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  bool Started() const { return pid_ > 0 && fd_ >= 0; }

  /// Writes `line` and a newline to the process's standard input.
  bool Tell(const std::string& line) {
    signal(SIGPIPE, SIG_IGN);  // a peer that is gone makes write fail, not the test die
    const std::string text = line + "\n";
    return input_fd_ >= 0 &&
           write(input_fd_, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  }

  /// Reads until a line "key=..." arrived (true) or the time is up / the output ended.
  bool WaitForKey(const std::string& key, int timeout_ms) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (values_.count(key) == 0U) {
      if (!ReadSome(deadline)) {
        return values_.count(key) != 0U;
      }
    }
    return true;
  }

  /// Reads everything and waits for the exit; kills the process at the deadline. Returns the
  /// exit status, or -1 if it had to be killed.
  int Finish(int timeout_ms) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (ReadSome(deadline)) {
    }
    if (Clock::now() >= deadline) {
      Kill();
      return -1;
    }
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0) {
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  void Kill() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      int status = 0;
      waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }

  std::string Text(const std::string& key) const {
    const auto it = values_.find(key);
    return it == values_.end() ? std::string() : it->second;
  }
  uint64_t Number(const std::string& key) const {
    const auto it = values_.find(key);
    EXPECT_NE(it, values_.end()) << "missing " << key << " in the output of bridge_peer";
    return it == values_.end() ? 0U : std::strtoull(it->second.c_str(), nullptr, 10);
  }
  uint64_t Number(const std::string& key, std::size_t priority) const {
    return Number(key + "_p" + std::to_string(priority));
  }
  const std::string& Output() const { return output_; }

 private:
  bool ReadSome(Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || fd_ < 0) {
      return false;
    }
    pollfd item{fd_, POLLIN, 0};
    if (poll(&item, 1, static_cast<int>(left)) <= 0) {
      return false;
    }
    char buffer[4096];
    const ssize_t n = read(fd_, buffer, sizeof(buffer));
    if (n <= 0) {
      return false;
    }
    output_.append(buffer, static_cast<std::size_t>(n));
    std::size_t newline = 0U;
    while ((newline = output_.find('\n', parsed_)) != std::string::npos) {
      const std::string line = output_.substr(parsed_, newline - parsed_);
      const std::size_t equals = line.find('=');
      if (equals != std::string::npos) {
        values_[line.substr(0U, equals)] = line.substr(equals + 1U);
      }
      parsed_ = newline + 1U;
    }
    return true;
  }

  pid_t pid_ = -1;
  int fd_ = -1;
  int input_fd_ = -1;
  std::string output_;
  std::size_t parsed_ = 0U;
  std::map<std::string, std::string> values_;
};

constexpr int kStartMs = 20000;
constexpr int kRunMs = 120000;

/// Base addresses of a test: a fresh ipc:// path per call, or tcp://127.0.0.1 with free ports.
struct Link {
  std::string high;
  std::string normal;
};

Link IpcLink(const std::string& name) {
  static int counter = 0;
  const std::string base = "ipc://@mccc-bridge-test-" + std::to_string(getpid()) + "-" + name +
                           "-" + std::to_string(counter++);
  return Link{base + ".high", base + ".normal"};
}
Link TcpAnyPort() {
  return Link{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"};
}

std::vector<std::string> Args(std::vector<std::string> args, const Link& link) {
  args.insert(args.end(), {"--high", link.high, "--normal", link.normal});
  return args;
}

/// An importer started and listening; `link` becomes its bound addresses.
bool StartImporter(Peer& importer, Link& link) {
  if (!importer.Started() || !importer.WaitForKey("ready", kStartMs)) {
    ADD_FAILURE() << "importer did not start: " << importer.Output();
    return false;
  }
  link = Link{importer.Text("endpoint_high"), importer.Text("endpoint_normal")};
  return true;
}

class BridgeProcesses : public ::testing::TestWithParam<const char*> {
 protected:
  Link MakeLink(const std::string& name) const {
    return std::string(GetParam()) == "tcp" ? TcpAnyPort() : IpcLink(name);
  }
};

TEST_P(BridgeProcesses, HighExactlyOnceUnderLowFloodRefusalsCountedOnBothSides) {
  Link link = MakeLink("flood");
  // The exporter binds and publishes its first 20000 messages before any importer is there: its
  // send queues fill and refuse LOW, then MEDIUM, while the HIGH queue (its own channel) keeps
  // all 100 of its messages. Then the rest, 80000 messages in bursts of 200 every millisecond:
  // one HIGH per 200, one MEDIUM per 10, the rest LOW; then more LOW until the importer's bus
  // has refused some.
  Peer exporter(Args({"export", "--mode", "bind", "--pattern", "flood", "--messages", "100000",
                      "--blocked-messages", "20000", "--burst", "200", "--pace-us", "1000",
                      "--small-queue", "--hwm", "64", "--flood-until-told"},
                     link));
  ASSERT_TRUE(exporter.Started() && exporter.WaitForKey("blocked_done", kStartMs))
      << exporter.Output();
  link = Link{exporter.Text("endpoint_high"), exporter.Text("endpoint_normal")};
  // The importer's controller blocks in its first LOW callback until its bus refused LOW: the
  // importer keeps taking frames meanwhile and counts the refusals. Its bus keeps room for every
  // HIGH message (HIGH travels in a lane of its own, 1024 slots, which LOW and MEDIUM never fill,
  // and 500 HIGH messages fit in it).
  Peer importer(Args({"import", "--mode", "connect", "--hold-controller", "--hwm", "64"}, link));
  ASSERT_TRUE(importer.WaitForKey("importer_refused", kRunMs)) << importer.Output();
  ASSERT_TRUE(exporter.Tell("stop"));
  ASSERT_EQ(exporter.Finish(kRunMs), 0) << exporter.Output();
  ASSERT_EQ(importer.Finish(kRunMs), 0) << importer.Output() << exporter.Output();
  SCOPED_TRACE(exporter.Output());
  SCOPED_TRACE(importer.Output());

  EXPECT_EQ(exporter.Number("backlog_taken"), 1U);
  // The exporter's bus delivered every admitted message once, ids 1, 2, 3, ...: its refusals
  // can be told apart by the priority of their ids.
  EXPECT_EQ(exporter.Number("ids_consecutive"), 1U);
  EXPECT_EQ(importer.Number("held_until_refusal"), 1U);
  for (std::size_t p = 0U; p < 3U; ++p) {
    SCOPED_TRACE(p);
    // Exporter: every message its subscription got was sent or refused, and each refusal was
    // reported to the error callback with the msg_id of a message of that priority.
    EXPECT_EQ(exporter.Number("published", p),
              exporter.Number("sent", p) + exporter.Number("refused", p));
    EXPECT_EQ(exporter.Number("refused_reported", p), exporter.Number("refused", p));
    // Importer: every frame sent arrived and was delivered or refused by its bus.
    EXPECT_EQ(exporter.Number("sent", p),
              importer.Number("delivered", p) + importer.Number("refused_by_bus", p));
    EXPECT_EQ(importer.Number("callbacks", p), importer.Number("delivered", p));
    EXPECT_EQ(importer.Number("bus_dropped", p), importer.Number("refused_by_bus", p));
  }
  EXPECT_EQ(exporter.Number("err_send_refused"), exporter.Number("refused", 0U) +
                                                     exporter.Number("refused", 1U) +
                                                     exporter.Number("refused", 2U));
  EXPECT_GT(exporter.Number("refused", 0U), 0U) << "LOW is refused while no importer is there";
  EXPECT_GT(exporter.Number("refused", 1U), 0U) << "and MEDIUM too";
  EXPECT_GT(importer.Number("refused_by_bus", 0U), 0U) << "the held controller's bus refuses";
  EXPECT_EQ(importer.Number("err_queue_full"),
            importer.Number("refused_by_bus", 0U) + importer.Number("refused_by_bus", 1U));
  EXPECT_EQ(exporter.Number("stop_told"), 1U);
  // HIGH: 500 published, none refused anywhere, each delivered exactly once.
  EXPECT_EQ(exporter.Number("published", 2U), 500U);
  EXPECT_EQ(exporter.Number("refused", 2U), 0U);
  EXPECT_EQ(importer.Number("delivered", 2U), 500U);
  EXPECT_EQ(importer.Number("refused_by_bus", 2U), 0U);
  EXPECT_EQ(importer.Number("high_unique"), 500U);
  EXPECT_EQ(importer.Number("high_duplicates"), 0U);
  EXPECT_EQ(importer.Number("invalid"), 0U);
  EXPECT_EQ(importer.Number("lost") + importer.Number("corrupted") + importer.Number("repeated") +
                importer.Number("reordered") + importer.Number("missed_at_join"),
            0U);
  EXPECT_EQ(exporter.Number("dropped_at_stop"), 0U);
  // Both ends of stream read and confirmed before the exporter closed its link.
  EXPECT_EQ(exporter.Number("ends_confirmed"), 2U);
  EXPECT_EQ(exporter.Number("ends_unconfirmed"), 0U);
  EXPECT_EQ(importer.Number("ends_confirmed"), 2U);
}

TEST_P(BridgeProcesses, FaultProxyEveryFaultDetectedAndCountedNoBadMessageDelivered) {
  Link to_importer = MakeLink("proxy-out");
  Peer importer(Args({"import"}, to_importer));
  ASSERT_TRUE(StartImporter(importer, to_importer));
  Link to_proxy = MakeLink("proxy-in");
  Peer proxy(Args({"proxy", "--out-high", to_importer.high, "--out-normal", to_importer.normal},
                  to_proxy));
  ASSERT_TRUE(proxy.WaitForKey("ready", kStartMs)) << proxy.Output();
  to_proxy = Link{proxy.Text("endpoint_high"), proxy.Text("endpoint_normal")};
  // 2000 messages: every 10th HIGH (200), the rest MEDIUM (1800): whole blocks of 10 per channel.
  Peer exporter(Args({"export", "--pattern", "steady", "--messages", "2000"}, to_proxy));
  ASSERT_EQ(exporter.Finish(kRunMs), 0) << exporter.Output();
  ASSERT_EQ(proxy.Finish(kRunMs), 0) << proxy.Output();
  ASSERT_EQ(importer.Finish(kRunMs), 0) << importer.Output();

  EXPECT_EQ(exporter.Number("refused", 1U) + exporter.Number("refused", 2U), 0U);
  EXPECT_EQ(exporter.Number("ends_confirmed"), 2U);
  EXPECT_EQ(proxy.Number("confirmations"), 2U);
  ASSERT_EQ(proxy.Number("data_frames"), 2000U);
  const uint64_t blocks = 200U;
  EXPECT_EQ(proxy.Number("dropped"), blocks);
  EXPECT_EQ(proxy.Number("repeated"), blocks);
  EXPECT_EQ(proxy.Number("reordered"), blocks);
  EXPECT_EQ(proxy.Number("flipped"), blocks);
  EXPECT_EQ(importer.Number("frames_received"), proxy.Number("forwarded"));
  EXPECT_EQ(importer.Number("messages_received"),
            proxy.Number("messages") + proxy.Number("markers"));
  EXPECT_EQ(importer.Number("corrupted"), proxy.Number("flipped"));
  EXPECT_EQ(importer.Number("repeated"), proxy.Number("repeated"));
  EXPECT_EQ(importer.Number("reordered"), proxy.Number("reordered"));
  EXPECT_EQ(importer.Number("lost"),
            proxy.Number("dropped") + proxy.Number("reordered") + proxy.Number("flipped"));
  EXPECT_EQ(importer.Number("missed_at_join"), 0U);
  EXPECT_EQ(importer.Number("malformed") + importer.Number("wrong_schema"), 0U);
  EXPECT_EQ(importer.Number("delivered", 1U), 1800U - 3U * 180U);
  EXPECT_EQ(importer.Number("delivered", 2U), 200U - 3U * 20U);
  EXPECT_EQ(importer.Number("invalid"), 0U);
  EXPECT_EQ(importer.Number("err_receive_fault"),
            importer.Number("reports_lost") + importer.Number("corrupted") +
                importer.Number("repeated") + importer.Number("reordered"));
}

TEST_P(BridgeProcesses, ReceiverKilledAndRestartedGapReportedDeliveryResumes) {
  Link link = MakeLink("restart");
  Peer first(Args({"import", "--progress", "500"}, link));
  ASSERT_TRUE(StartImporter(first, link));
  // 6000 MEDIUM messages, one every 200 microseconds: about 1.2 s of traffic. The exporter stops
  // when told, once the second importer listens (what it still holds then reaches that one).
  Peer exporter(Args({"export", "--pattern", "medium", "--messages", "6000", "--pace-us", "200",
                      "--stop-on-stdin"},
                     link));
  ASSERT_TRUE(first.WaitForKey("progress", kRunMs)) << first.Output();
  first.Kill();  // mid-stream, without any goodbye
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // The same addresses (ipc: the same path; tcp: the ports the first one had).
  Peer second(Args({"import"}, link));
  Link rebound = link;
  ASSERT_TRUE(StartImporter(second, rebound));
  ASSERT_TRUE(exporter.Tell("stop"));
  ASSERT_EQ(exporter.Finish(kRunMs), 0) << exporter.Output();
  ASSERT_EQ(second.Finish(kRunMs), 0) << second.Output();

  const uint64_t sent = exporter.Number("sent", 1U);
  EXPECT_EQ(exporter.Number("published", 1U), 6000U);
  EXPECT_EQ(sent + exporter.Number("refused", 1U), 6000U);
  EXPECT_EQ(exporter.Number("dropped_at_stop"), 0U);
  EXPECT_EQ(exporter.Number("stop_told"), 1U);
  EXPECT_EQ(exporter.Number("ends_confirmed"), 2U);
  // The second receiver joined mid-stream: the numbers before its first frame are reported.
  const uint64_t missed = second.Number("missed_at_join");
  EXPECT_GT(missed, 0U);
  EXPECT_GE(second.Number("reports_missed_at_join"), 1U);
  EXPECT_GT(second.Number("first_index"), 0U);
  // Delivery resumed, and every sequence number of the stream is accounted for.
  EXPECT_GT(second.Number("delivered", 1U), 0U);
  EXPECT_EQ(missed + second.Number("lost") + second.Number("delivered", 1U) +
                second.Number("refused_by_bus", 1U),
            sent);
  EXPECT_EQ(second.Number("invalid"), 0U);
  EXPECT_EQ(second.Number("repeated") + second.Number("corrupted"), 0U);
}

TEST_P(BridgeProcesses, SchemaMismatchRefusedWithItsError) {
  Link link = MakeLink("schema");
  Peer importer(
      Args({"import", "--bus", "other", "--expect-ended", "0", "--idle-exit-ms", "500"}, link));
  ASSERT_TRUE(StartImporter(importer, link));
  Peer exporter(Args({"export", "--pattern", "medium", "--messages", "50"}, link));
  ASSERT_EQ(exporter.Finish(kRunMs), 0) << exporter.Output();
  ASSERT_EQ(importer.Finish(kRunMs), 0) << importer.Output();
  EXPECT_GE(importer.Number("frames_received"), 52U);  // 50 data + 2 end-of-stream at least
  EXPECT_EQ(importer.Number("wrong_schema"), importer.Number("frames_received"));
  EXPECT_EQ(importer.Number("reports_wrong_schema"), importer.Number("wrong_schema"));
  EXPECT_EQ(importer.Number("err_schema_mismatch"), importer.Number("wrong_schema"));
  EXPECT_EQ(importer.Number("delivered", 1U) + importer.Number("callbacks", 1U), 0U);
  // Refused, but read: the ends of stream are confirmed, so the exporter did not wait in vain.
  EXPECT_EQ(exporter.Number("ends_confirmed"), 2U);
}

INSTANTIATE_TEST_SUITE_P(Transports, BridgeProcesses, ::testing::Values("ipc", "tcp"),
                         [](const ::testing::TestParamInfo<const char*>& param_info) {
                           return std::string(param_info.param);
                         });

}  // namespace

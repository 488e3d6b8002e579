// SPDX-License-Identifier: MIT
/// @file report.hpp
/// @brief Run metadata (machine, compiler, flags, commit, load) and a small JSON writer, so every
/// benchmark run leaves a self-describing record next to its human-readable table.
#ifndef MCCC_BENCH_COMMON_REPORT_HPP_
#define MCCC_BENCH_COMMON_REPORT_HPP_

#include <sys/utsname.h>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/harness.hpp"

#ifndef MCCC_BENCH_FLAGS
#define MCCC_BENCH_FLAGS "unknown"
#endif
#ifndef MCCC_BENCH_BUILD_TYPE
#define MCCC_BENCH_BUILD_TYPE "unknown"
#endif

namespace mccc_bench {

/// @brief Escapes `s` for a JSON string literal.
inline std::string JsonEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2U);
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20U) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

/// @brief `"text"` as a JSON value.
inline std::string JStr(const std::string& s) {
  return "\"" + JsonEscape(s) + "\"";
}

/// @brief A number as a JSON value (non-finite values become null).
inline std::string JNum(double v) {
  if (!(v == v) || v > 1e300 || v < -1e300) {
    return "null";
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

/// @brief An unsigned integer as a JSON value.
inline std::string JNum(uint64_t v) {
  return std::to_string(v);
}

/// @brief Builds one JSON object member by member.
class JsonObject {
 public:
  /// @brief Adds `"key": <raw JSON>`.
  JsonObject& Raw(const std::string& key, const std::string& raw_json) {
    members_.push_back(JStr(key) + ": " + raw_json);
    return *this;
  }
  /// @brief Adds a string member.
  JsonObject& Str(const std::string& key, const std::string& value) {
    return Raw(key, JStr(value));
  }
  /// @brief Adds a floating-point member.
  JsonObject& Num(const std::string& key, double value) { return Raw(key, JNum(value)); }
  /// @brief Adds an integer member.
  JsonObject& Int(const std::string& key, uint64_t value) { return Raw(key, JNum(value)); }
  /// @brief Adds a boolean member.
  JsonObject& Bool(const std::string& key, bool value) {
    return Raw(key, value ? "true" : "false");
  }
  /// @brief Adds a Summary as {median, min, max, mean, sd, n}.
  JsonObject& Sum(const std::string& key, const Summary& s) {
    JsonObject o;
    o.Num("median", s.median).Num("min", s.min).Num("max", s.max).Num("mean", s.mean);
    o.Num("sd", s.sd).Int("n", s.n);
    return Raw(key, o.Text());
  }
  /// @brief The object as JSON text.
  std::string Text() const {
    std::string out = "{";
    for (std::size_t i = 0U; i < members_.size(); ++i) {
      out += (i == 0U ? "\n" : ",\n") + members_[i];
    }
    return out + "\n}";
  }

 private:
  std::vector<std::string> members_;
};

/// @brief A JSON array of raw JSON elements.
inline std::string JArray(const std::vector<std::string>& elements) {
  std::string out = "[";
  for (std::size_t i = 0U; i < elements.size(); ++i) {
    out += (i == 0U ? "" : ", ") + elements[i];
  }
  return out + "]";
}

/// @brief A JSON array of numbers (a row's per-round samples).
inline std::string SamplesJson(const std::vector<double>& values) {
  std::vector<std::string> items;
  items.reserve(values.size());
  for (double x : values) {
    items.push_back(JNum(x));
  }
  return JArray(items);
}

/// @brief First line of a file (empty if unreadable).
inline std::string ReadFirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// @brief The "model name" of the first CPU in /proc/cpuinfo.
inline std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0U) == 0U) {
      const std::size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2U);
    }
  }
  return "unknown";
}

/// @brief UTC time as ISO 8601 (for the report and the JSON file name).
inline std::string UtcTimestamp(bool compact) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// @brief Everything about the run that is not a result.
struct RunInfo {
  std::string benchmark;    ///< Binary name.
  std::string commit;       ///< Git commit (from --commit).
  std::string started;      ///< UTC start time.
  std::string load_before;  ///< /proc/loadavg at start.
  std::string load_after;   ///< /proc/loadavg at the end.
  bool pinned = true;       ///< False if any thread could not be pinned.
  std::string args;         ///< Command line.

  /// @brief The "run" JSON object.
  std::string Json() const {
    utsname u{};
    uname(&u);
    JsonObject o;
    o.Str("benchmark", benchmark).Str("started_utc", started).Str("commit", commit);
    o.Str("command_line", args);
    JsonObject machine;
    machine.Str("cpu", CpuModel()).Int("online_cores", static_cast<uint64_t>(CoreCount()));
    machine.Str("kernel", std::string(u.sysname) + " " + u.release + " " + u.machine);
    machine.Str("clocksource",
                ReadFirstLine("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
    machine.Str("loadavg_before", load_before).Str("loadavg_after", load_after);
    machine.Bool("threads_pinned", pinned);
    machine.Int("producer_core", static_cast<uint64_t>(kProducerCore));
    machine.Int("consumer_core", static_cast<uint64_t>(kConsumerCore));
    o.Raw("machine", machine.Text());
    JsonObject compiler;
#if defined(__clang__)
    compiler.Str("id", "clang");
#elif defined(__GNUC__)
    compiler.Str("id", "gcc");
#else
    compiler.Str("id", "unknown");
#endif
    compiler.Str("version", __VERSION__).Str("flags", MCCC_BENCH_FLAGS);
    compiler.Str("build_type", MCCC_BENCH_BUILD_TYPE);
    o.Raw("compiler", compiler.Text());
    return o.Text();
  }
};

/// @brief Starts a RunInfo from argv.
inline RunInfo StartRun(const char* name, int argc, char** argv, const std::string& commit) {
  RunInfo info;
  info.benchmark = name;
  info.commit = commit.empty() ? "unknown" : commit;
  info.started = UtcTimestamp(false);
  info.load_before = ReadFirstLine("/proc/loadavg");
  for (int i = 0; i < argc; ++i) {
    info.args += (i == 0 ? "" : " ") + std::string(argv[i]);
  }
  return info;
}

/// @brief Writes `{"run": ..., "results": ...}` to `path` (nothing if empty). Returns false and
/// prints why if the file cannot be written.
inline bool WriteJson(const std::string& path, RunInfo& info, const std::string& results_json) {
  if (path.empty()) {
    return true;
  }
  info.load_after = ReadFirstLine("/proc/loadavg");
  std::ofstream out(path);
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  JsonObject root;
  root.Raw("run", info.Json()).Raw("results", results_json);
  out << root.Text() << "\n";
  std::printf("\nJSON written to %s\n", path.c_str());
  return static_cast<bool>(out);
}

}  // namespace mccc_bench

#endif  // MCCC_BENCH_COMMON_REPORT_HPP_

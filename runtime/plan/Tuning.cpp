//===- Tuning.cpp - the tuning file: read, write, merge, look up ----------===//
//
// docs/tuning.md describes the format. Every rule the reader checks names
// the JSON path of the value that breaks it.
//
//===----------------------------------------------------------------------===//
#include "collrt/Tuning.h"

#include "collrt/Plan.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>

namespace collrt {

namespace sched = collc::sched;
using Json = nlohmann::json;

namespace {

bool reducing(sched::Collective c) {
  return c == sched::Collective::AllReduce ||
         c == sched::Collective::ReduceScatter ||
         c == sched::Collective::Reduce;
}

/// The first rule broken, with its JSON path; reading stops there.
struct Broken {
  std::string path;
  std::string rule;
};

class Reader {
public:
  explicit Reader(const Json &root) : root(root) {}

  bool read(TuningTable *table) {
    if (!root.is_object())
      return fail("", "a tuning file is a JSON object");
    if (!only(root, "", {"format", "version", "entries"}))
      return false;
    if (!root.contains("format") || root["format"] != "collc-tuning")
      return fail(".format", "must be \"collc-tuning\"");
    if (!root.contains("version") || !root["version"].is_number_integer() ||
        root["version"].get<int64_t>() != kTuningVersion)
      return fail(".version", "must be " + std::to_string(kTuningVersion) +
                                  " (the version this collc reads)");
    const Json *entries = member(root, "", "entries");
    if (!entries)
      return false;
    if (!entries->is_array())
      return fail(".entries", "must be an array");
    for (size_t i = 0; i < entries->size(); ++i) {
      TuningEntry entry;
      if (!readEntry((*entries)[i], ".entries[" + std::to_string(i) + "]",
                     &entry))
        return false;
      for (const TuningEntry &other : table->entries)
        if (sameKey(other, entry))
          return fail(".entries[" + std::to_string(i) + "]",
                      "measures the same collective, group size, type, "
                      "reduction and size as an earlier entry");
      table->entries.push_back(std::move(entry));
    }
    return true;
  }

  Broken broken;

private:
  static bool sameKey(const TuningEntry &a, const TuningEntry &b) {
    return a.collective == b.collective && a.ranks == b.ranks &&
           a.dtype == b.dtype &&
           (!reducing(a.collective) || a.reduction == b.reduction) &&
           a.bytesPerRank == b.bytesPerRank;
  }

  bool fail(std::string path, std::string rule) {
    broken = {path.empty() ? "(the document)" : path.substr(1),
              std::move(rule)};
    return false;
  }

  bool only(const Json &object, const std::string &path,
            std::initializer_list<const char *> keys) {
    for (auto it = object.begin(); it != object.end(); ++it)
      if (std::find_if(keys.begin(), keys.end(), [&](const char *k) {
            return it.key() == k;
          }) == keys.end())
        return fail(path + "." + it.key(), "unknown key");
    return true;
  }

  const Json *member(const Json &object, const std::string &path,
                     const char *key) {
    auto it = object.find(key);
    if (it == object.end()) {
      fail(path + "." + key, "is missing");
      return nullptr;
    }
    return &*it;
  }

  bool text(const Json &object, const std::string &path, const char *key,
            std::string *out) {
    const Json *v = member(object, path, key);
    if (!v)
      return false;
    if (!v->is_string())
      return fail(path + "." + key, "must be a string");
    *out = v->get<std::string>();
    return true;
  }

  bool integer(const Json &object, const std::string &path, const char *key,
               int64_t min, int64_t max, int64_t *out) {
    const Json *v = member(object, path, key);
    if (!v)
      return false;
    if (!v->is_number_integer())
      return fail(path + "." + key, "must be an integer");
    int64_t value = v->is_number_unsigned()
                        ? (v->get<uint64_t>() > uint64_t(INT64_MAX)
                               ? INT64_MAX
                               : int64_t(v->get<uint64_t>()))
                        : v->get<int64_t>();
    if (value < min || value > max)
      return fail(path + "." + key, "must be from " + std::to_string(min) +
                                        " to " + std::to_string(max));
    *out = value;
    return true;
  }

  bool readEntry(const Json &value, const std::string &path,
                 TuningEntry *entry) {
    if (!value.is_object())
      return fail(path, "an entry is a JSON object");
    if (!only(value, path,
              {"collective", "ranks", "dtype", "reduction", "bytes_per_rank",
               "host", "transport", "processes", "buffers", "measured",
               "rounds", "iters", "candidates"}))
      return false;
    std::string name;
    if (!text(value, path, "collective", &name))
      return false;
    if (!parseCollective(name, &entry->collective))
      return fail(path + ".collective", "unknown collective \"" + name + "\"");
    if (entry->collective == sched::Collective::AllToAllV)
      return fail(path + ".collective",
                  "all_to_all_v is not tuned: its time depends on the send "
                  "counts, which one size per rank does not fix");
    int64_t n = 0;
    if (!integer(value, path, "ranks", 1, 1 << 20, &n))
      return false;
    entry->ranks = int32_t(n);
    if (!text(value, path, "dtype", &name))
      return false;
    if (!parseDataType(name, &entry->dtype))
      return fail(path + ".dtype", "unknown element type \"" + name + "\"");
    if (!text(value, path, "reduction", &name))
      return false;
    if (!parseReduceOp(name, &entry->reduction))
      return fail(path + ".reduction", "unknown reduction \"" + name + "\"");
    if (!integer(value, path, "bytes_per_rank", 1, INT64_MAX, &n))
      return false;
    entry->bytesPerRank = n;
    if (!text(value, path, "host", &entry->host) ||
        !text(value, path, "transport", &entry->transport) ||
        !text(value, path, "measured", &entry->measured))
      return false;
    const Json *processes = member(value, path, "processes");
    if (!processes)
      return false;
    if (!processes->is_boolean())
      return fail(path + ".processes", "must be true or false");
    entry->processes = processes->get<bool>();
    entry->buffers = "malloc";
    if (value.contains("buffers")) {
      if (!text(value, path, "buffers", &entry->buffers))
        return false;
      if (entry->buffers != "malloc" && entry->buffers != "host" &&
          entry->buffers != "device")
        return fail(path + ".buffers",
                    "must be \"malloc\", \"host\" or \"device\"");
    }
    if (!integer(value, path, "rounds", 1, 1000000, &n))
      return false;
    entry->rounds = int(n);
    if (!integer(value, path, "iters", 1, 1000000000, &n))
      return false;
    entry->iters = int(n);
    const Json *candidates = member(value, path, "candidates");
    if (!candidates)
      return false;
    if (!candidates->is_array() || candidates->empty())
      return fail(path + ".candidates", "must be a non-empty array");
    for (size_t i = 0; i < candidates->size(); ++i) {
      std::string at = path + ".candidates[" + std::to_string(i) + "]";
      TuningCandidate c;
      if (!readCandidate((*candidates)[i], at, &c))
        return false;
      if (!entry->candidates.empty() &&
          c.seconds < entry->candidates.back().seconds)
        return fail(at + ".seconds",
                    "candidates must be in order of time, fastest first");
      for (const TuningCandidate &other : entry->candidates)
        if (other.fingerprint == c.fingerprint)
          return fail(at + ".fingerprint",
                      "the same program as an earlier candidate (" +
                          other.algorithm +
                          " k=" + std::to_string(other.chunksPerPart) + ")");
      entry->candidates.push_back(std::move(c));
    }
    return true;
  }

  bool readCandidate(const Json &value, const std::string &path,
                     TuningCandidate *c) {
    if (!value.is_object())
      return fail(path, "a candidate is a JSON object");
    if (!only(value, path,
              {"algorithm", "chunks_per_part", "fingerprint", "seconds"}))
      return false;
    if (!text(value, path, "algorithm", &c->algorithm))
      return false;
    if (c->algorithm.empty())
      return fail(path + ".algorithm", "must not be empty");
    int64_t k = 0;
    if (!integer(value, path, "chunks_per_part", 1, UINT32_MAX, &k))
      return false;
    c->chunksPerPart = uint32_t(k);
    std::string hex;
    if (!text(value, path, "fingerprint", &hex))
      return false;
    char *end = nullptr;
    errno = 0;
    unsigned long long fp = hex.size() == 18 && hex[0] == '0' && hex[1] == 'x'
                                ? std::strtoull(hex.c_str() + 2, &end, 16)
                                : 0;
    if (hex.size() != 18 || hex[0] != '0' || hex[1] != 'x' || errno ||
        end != hex.c_str() + hex.size())
      return fail(path + ".fingerprint",
                  "must be \"0x\" and 16 hexadecimal digits");
    c->fingerprint = fp;
    const Json *seconds = member(value, path, "seconds");
    if (!seconds)
      return false;
    if (!seconds->is_number() || !(seconds->get<double>() > 0) ||
        !std::isfinite(seconds->get<double>()))
      return fail(path + ".seconds", "must be a number > 0");
    c->seconds = seconds->get<double>();
    return true;
  }

  const Json &root;
};

std::string quote(const std::string &s) { return Json(s).dump(); }

std::tuple<int, int32_t, int, int, int64_t> order(const TuningEntry &e) {
  return {int(e.collective), e.ranks, int(e.dtype),
          reducing(e.collective) ? int(e.reduction) : -1, e.bytesPerRank};
}

} // namespace

std::string fingerprintText(uint64_t fingerprint) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%016" PRIx64, fingerprint);
  return buffer;
}

Status tuningFromJson(const std::string &text, const std::string &sourceName,
                      TuningTable *table) {
  Json root = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    // Parse again for the position of the syntax error.
    try {
      Json again = Json::parse(text);
      (void)again;
    } catch (const Json::parse_error &e) {
      std::string what = e.what();
      size_t at = what.find("parse error");
      return Status(ErrorCode::InvalidArgument,
                    sourceName + ": not JSON: " +
                        (at == std::string::npos ? what : what.substr(at)));
    }
    return Status(ErrorCode::InvalidArgument, sourceName + ": not JSON");
  }
  TuningTable read;
  Reader reader(root);
  if (!reader.read(&read))
    return Status(ErrorCode::InvalidArgument, sourceName + ": " +
                                                  reader.broken.path + ": " +
                                                  reader.broken.rule);
  *table = std::move(read);
  return Status::success();
}

std::string tuningToJson(const TuningTable &table) {
  std::ostringstream out;
  out << "{\n  \"format\": \"collc-tuning\",\n  \"version\": " << kTuningVersion
      << ",\n  \"entries\": [";
  for (size_t i = 0; i < table.entries.size(); ++i) {
    const TuningEntry &e = table.entries[i];
    out << (i ? ",\n" : "\n")
        << "    {\"collective\": " << quote(sched::collectiveName(e.collective))
        << ", \"ranks\": " << e.ranks
        << ", \"dtype\": " << quote(dataTypeName(e.dtype))
        << ", \"reduction\": " << quote(reduceOpName(e.reduction))
        << ", \"bytes_per_rank\": " << e.bytesPerRank
        << ",\n     \"host\": " << quote(e.host)
        << ", \"transport\": " << quote(e.transport)
        << ", \"processes\": " << (e.processes ? "true" : "false")
        << ", \"buffers\": " << quote(e.buffers)
        << ", \"measured\": " << quote(e.measured)
        << ", \"rounds\": " << e.rounds << ", \"iters\": " << e.iters
        << ",\n     \"candidates\": [";
    for (size_t c = 0; c < e.candidates.size(); ++c) {
      const TuningCandidate &k = e.candidates[c];
      char seconds[40];
      std::snprintf(seconds, sizeof seconds, "%.9g", k.seconds);
      out << (c ? ",\n" : "\n")
          << "       {\"algorithm\": " << quote(k.algorithm)
          << ", \"chunks_per_part\": " << k.chunksPerPart
          << ", \"fingerprint\": \"" << fingerprintText(k.fingerprint)
          << "\", \"seconds\": " << seconds << "}";
    }
    out << "\n     ]}";
  }
  out << (table.entries.empty() ? "]\n}\n" : "\n  ]\n}\n");
  return out.str();
}

Status loadTuningFile(const std::string &path, TuningTable *table) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status(ErrorCode::SystemError, "cannot read tuning file '" + path +
                                              "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return Status(ErrorCode::SystemError,
                  "cannot read tuning file '" + path + "'");
  return tuningFromJson(text.str(), path, table);
}

Status saveTuningFile(const std::string &path, const TuningTable &table) {
  return writeFileAtomically(path, tuningToJson(table));
}

void addTuningEntry(TuningTable &table, TuningEntry entry) {
  std::vector<TuningEntry> &entries = table.entries;
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [&](const TuningEntry &e) {
                                 return order(e) == order(entry);
                               }),
                entries.end());
  auto at = std::upper_bound(entries.begin(), entries.end(), entry,
                             [](const TuningEntry &a, const TuningEntry &b) {
                               return order(a) < order(b);
                             });
  entries.insert(at, std::move(entry));
}

std::vector<const TuningEntry *> tuningEntriesFor(const TuningTable &table,
                                                  sched::Collective collective,
                                                  int32_t ranks, DataType dtype,
                                                  ReduceOp reduction) {
  std::vector<const TuningEntry *> found;
  for (const TuningEntry &e : table.entries)
    if (e.collective == collective && e.ranks == ranks && e.dtype == dtype &&
        (!reducing(collective) || e.reduction == reduction))
      found.push_back(&e);
  std::stable_sort(found.begin(), found.end(),
                   [](const TuningEntry *a, const TuningEntry *b) {
                     return a->bytesPerRank < b->bytesPerRank;
                   });
  return found;
}

const TuningEntry *
nearestTuningEntry(const std::vector<const TuningEntry *> &entries,
                   int64_t bytesPerRank) {
  if (entries.empty() || bytesPerRank <= 0)
    return nullptr;
  double b = double(bytesPerRank);
  if (b < double(entries.front()->bytesPerRank) / 2 ||
      b > double(entries.back()->bytesPerRank) * 2)
    return nullptr;
  const TuningEntry *best = nullptr;
  double distance = 0;
  for (const TuningEntry *e : entries) {
    double d = std::fabs(std::log(b / double(e->bytesPerRank)));
    if (!best || d < distance - 1e-12) {
      best = e;
      distance = d;
    }
  }
  return best;
}

} // namespace collrt

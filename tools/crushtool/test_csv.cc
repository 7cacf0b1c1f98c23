#include "tools/crushtool/test_csv.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "crush/util/text_format.h"
#include "tools/crushtool/ceph_io.h"
#include "tools/crushtool/test_batches.h"

namespace crushkit::tools::crushtool {
namespace {

using crush::ItemId;

// "index,v0,v1,...\n" as write_integer_indexed_vector_data_string.
template <typename T, typename Format>
std::string IndexedLine(long long index, std::span<const T> values, Format format) {
  std::string line = std::to_string(index);
  for (const T& v : values) line += "," + format(v);
  return line + "\n";
}

std::string Int(long long v) { return std::to_string(v); }

std::string Float(float v) { return util::FormatCephFloat(v); }

absl::Status Write(const std::string& path, const std::string& text) {
  if (const int e = WriteFileAtomic(path, text); e != 0) {
    return absl::UnavailableError("cannot write " + path + ": " + CppStrerror(e));
  }
  return absl::OkStatus();
}

// Counts per device of each --batches batch; Ceph sets a batch's counts only
// once it mapped an input of it.
using BatchCounts = std::vector<std::optional<std::vector<int>>>;

// placement_information: every input's placement, counted per batch.
std::string PlacementCsv(const TestOptions& opt, const CsvRuleRun& run, BatchCounts* batch_per) {
  const std::size_t devices = run.per.size();
  std::string placement = "Input";
  for (int i = 0; i < opt.max_rep; ++i) placement += ", OSD" + std::to_string(i);
  placement += "\n";
  const int num_objects = WrapAdd(WrapSub(run.max_x, run.min_x), 1);
  std::size_t mapped = 0;
  for (const XSegment& batch : BatchRanges(run.min_x, run.max_x, opt.batches, num_objects)) {
    std::vector<int> counts(devices, 0);
    std::optional<std::vector<int>>& slot = batch_per->emplace_back();
    for (long long x = batch.lo; x <= batch.hi; ++x, ++mapped) {
      std::span<const ItemId> out;
      if (mapped < run.placements.size()) out = run.placements[mapped];
      placement += IndexedLine<ItemId>(x, out, Int);
      for (ItemId item : out) {
        if (item >= 0 && static_cast<std::size_t>(item) < devices)
          ++counts[static_cast<std::size_t>(item)];
      }
      slot = counts;
    }
  }
  return placement;
}

struct UtilizationCsvs {
  std::string used;  // devices expected and given objects
  std::string all;
  std::size_t used_rows = 0;
};

UtilizationCsvs Utilization(const CsvRuleRun& run) {
  const std::string header = "Device ID, Number of Objects Stored, Number of Objects Expected\n";
  UtilizationCsvs u{.used = header, .all = header, .used_rows = 0};
  for (std::size_t i = 0; i < run.per.size(); ++i) {
    const float row[2] = {static_cast<float>(run.per[i]), run.num_objects_expected[i]};
    const std::string line = IndexedLine<float>(static_cast<long long>(i), row, Float);
    u.all += line;
    if (run.num_objects_expected[i] > 0 && run.per[i] > 0) {
      u.used += line;
      ++u.used_rows;
    }
  }
  return u;
}

struct WeightCsvs {
  std::string proportional;  // devices of weight > 0
  std::string proportional_all;
  std::string absolute;
};

WeightCsvs Weights(const CsvRuleRun& run) {
  long long total_weight = 0;
  for (crush::Weight w : run.weight)
    total_weight = WrapAdd(static_cast<int>(total_weight), static_cast<int>(w));
  WeightCsvs c{.proportional = "Device ID, Proportional Weight\n",
               .proportional_all = "Device ID, Proportional Weight\n",
               .absolute = "Device ID, Absolute Weight\n"};
  for (std::size_t i = 0; i < run.per.size(); ++i) {
    const float p = static_cast<float>(run.weight[i]) / static_cast<float>(total_weight);
    const std::string line = std::to_string(i) + "," + Float(p) + "\n";
    if (p > 0) c.proportional += line;
    c.proportional_all += line;
    c.absolute +=
        std::to_string(i) + "," + Float(static_cast<float>(run.weight[i]) / 65536.0F) + "\n";
  }
  return c;
}

// The two batch files: Ceph writes the stored counts into both and sizes
// their headers by the rows of device_utilization.
absl::Status WriteBatchCsvs(const std::string& tag, std::size_t utilization_rows,
                            const BatchCounts& batch_per) {
  std::string stored = "Batch Round", expected = "Batch Round";
  for (std::size_t i = 0; i < utilization_rows; ++i) {
    stored += ", Objects Stored on OSD" + std::to_string(i);
    expected += ", Objects Expected on OSD" + std::to_string(i);
  }
  stored += "\n";
  expected += "\n";
  for (std::size_t b = 0; b < batch_per.size(); ++b) {
    const std::vector<int> none;
    const std::vector<int>& counts = batch_per[b] ? *batch_per[b] : none;
    const std::string line = IndexedLine<int>(static_cast<long long>(b), counts, Int);
    stored += line;
    expected += line;
  }
  if (auto s = Write(tag + "-batch_device_utilization_all.csv", stored); !s.ok()) return s;
  return Write(tag + "-batch_device_expected_utilization_all.csv", expected);
}

}  // namespace

absl::Status WriteTestCsv(const crush::MapModel& map, const TestOptions& opt,
                          const CsvRuleRun& run) {
  const auto name = map.rule_names.find(run.rule);
  if (name == map.rule_names.end()) {
    return absl::UnimplementedError("rule " + std::to_string(run.rule) +
                                    " has no name (Ceph aborts building the CSV file names)");
  }
  const std::string tag = opt.output_name + name->second;
  BatchCounts batch_per;
  const std::string placement = PlacementCsv(opt, run, &batch_per);
  const UtilizationCsvs utilization = Utilization(run);
  const WeightCsvs weights = Weights(run);
  for (const auto& [suffix, text] :
       {std::pair<const char*, const std::string&>{"device_utilization", utilization.used},
        {"device_utilization_all", utilization.all},
        {"placement_information", placement},
        {"proportional_weights", weights.proportional},
        {"proportional_weights_all", weights.proportional_all},
        {"absolute_weights", weights.absolute}}) {
    if (auto s = Write(tag + "-" + suffix + ".csv", text); !s.ok()) return s;
  }
  if (opt.batches > 1) return WriteBatchCsvs(tag, utilization.used_rows, batch_per);
  return absl::OkStatus();
}

}  // namespace crushkit::tools::crushtool

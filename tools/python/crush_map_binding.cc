// crushkit.CrushMap: a validated crush map (crush::CrushMap) loaded from
// Ceph's binary encoding, compiled from text or read from a crush dump (JSON),
// mapped with crush::DoRule.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "compiler/compile.h"
#include "compiler/source_file.h"
#include "crush/ceph_release.h"
#include "crush/codec.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"
#include "osdmap/formats/crush_dump_json.h"
#include "tools/python/bindings.h"
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace crushkit::python {
namespace {

namespace py = pybind11;

// A rule given by id or by name.
using RuleArg = std::variant<int, std::string>;

crush::CephRelease ReleaseArg(const std::optional<std::string>& name) {
  if (!name) return crush::kDefaultCephRelease;
  return ValueOrThrow(crush::ParseCephRelease(*name));
}

crush::MapModel CompileText(const std::string& text, const std::optional<std::string>& release) {
  const compiler::SourceFile src("<text>", text);
  compiler::CompileOptions options;
  options.release = ReleaseArg(release);
  return ValueOrThrow(compiler::Compile(src, nullptr, options));
}

class PyCrushMap {
 public:
  static PyCrushMap FromModel(const crush::MapModel& model) {
    return PyCrushMap(ValueOrThrow(crush::CrushMap::Build(model)));
  }

  static PyCrushMap FromBinary(const py::bytes& data) {
    return FromModel(ValueOrThrow(crush::DecodeCrushMap(std::string(data))));
  }

  static PyCrushMap FromText(const std::string& text, const std::optional<std::string>& release) {
    return FromModel(CompileText(text, release));
  }

  static PyCrushMap FromJson(const std::string& text) {
    return FromModel(ValueOrThrow(osdmap::ReadCrushDumpJson(text)));
  }

  py::bytes ToBinary() const { return py::bytes(crush::EncodeCrushMap(map_.model())); }

  std::string Decompile(const std::optional<std::string>& release) const {
    return ValueOrThrow(compiler::Decompile(map_.model(), ReleaseArg(release)));
  }

  void Save(const std::string& path, bool text, const std::optional<std::string>& release) const {
    WriteFileOrThrow(path, text ? Decompile(release) : crush::EncodeCrushMap(map_.model()));
  }

  int max_devices() const { return map_.max_devices(); }

  // Rule name -> id, for the rules that exist.
  std::map<std::string, int> Rules() const {
    std::map<std::string, int> rules;
    for (const auto& [id, name] : map_.model().rule_names) {
      if (map_.RuleExists(id)) rules.emplace(name, id);
    }
    return rules;
  }

  int RuleId(const RuleArg& rule) const {
    if (const int* id = std::get_if<int>(&rule)) {
      if (!map_.RuleExists(*id)) throw py::value_error("no rule " + std::to_string(*id));
      return *id;
    }
    const std::string& name = std::get<std::string>(rule);
    for (const auto& [id, rule_name] : map_.model().rule_names) {
      if (rule_name == name && map_.RuleExists(id)) return id;
    }
    throw py::value_error("no rule '" + name + "'");
  }

  std::optional<std::string> RuleName(int id) const {
    const auto& names = map_.model().rule_names;
    const auto it = names.find(RuleId(id));
    if (it == names.end()) return std::nullopt;
    return it->second;
  }

  std::vector<std::int32_t> DoRule(const RuleArg& rule, std::uint32_t x, int size,
                                   const std::optional<std::vector<double>>& weights,
                                   std::optional<std::int64_t> choose_args) const {
    const int id = RuleId(rule);
    CheckSize(size);
    const std::vector<crush::Weight> reweights = Reweights(weights);
    crush::Workspace ws(map_, size);
    std::vector<crush::ItemId> out(static_cast<std::size_t>(size));
    const int n = crush::DoRule(map_, id, x, reweights, ws, out, ChooseArgs(choose_args));
    out.resize(static_cast<std::size_t>(n));
    return out;
  }

  // One row per x; a row's slots past the result, and indep holes, are
  // crush::kItemNone.
  py::array_t<std::int32_t> MapMany(
      const RuleArg& rule,
      const py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>& xs, int size,
      const std::optional<std::vector<double>>& weights,
      std::optional<std::int64_t> choose_args) const {
    const int id = RuleId(rule);
    CheckSize(size);
    const crush::ChooseArgsRef args = ChooseArgs(choose_args);
    if (xs.ndim() != 1) throw py::value_error("xs must be a 1-D array of inputs");
    const std::vector<crush::Weight> reweights = Reweights(weights);
    const auto rows = static_cast<std::size_t>(xs.shape(0));
    const auto width = static_cast<std::size_t>(size);
    py::array_t<std::int32_t> result(
        {static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(size)});
    const std::uint32_t* in = xs.data();
    std::int32_t* out = result.mutable_data();
    {
      py::gil_scoped_release unlocked;
      crush::Workspace ws(map_, size);
      for (std::size_t i = 0; i < rows; ++i) {
        const std::span<crush::ItemId> row(out + i * width, width);
        const auto n =
            static_cast<std::size_t>(crush::DoRule(map_, id, in[i], reweights, ws, row, args));
        std::fill(row.begin() + static_cast<std::ptrdiff_t>(n), row.end(), crush::kItemNone);
      }
    }
    return result;
  }

 private:
  explicit PyCrushMap(crush::CrushMap map) : map_(std::move(map)) {}

  static void CheckSize(int size) {
    if (size < 1 || size > crush::kMaxWorkspaceResult) {
      throw py::value_error("size must be 1.." + std::to_string(crush::kMaxWorkspaceResult) +
                            ", got " + std::to_string(size));
    }
  }

  // The weight set of pool `index` (else the compat one), as
  // crushtool --test resolves index 0; none for nullopt.
  crush::ChooseArgsRef ChooseArgs(std::optional<std::int64_t> index) const {
    return index ? map_.ResolveChooseArgs(*index) : crush::ChooseArgsRef();
  }

  // 16.16 reweights: every device in (crushtool --test's default for
  // devices in the map) unless the caller gives one 0..1 value per device.
  std::vector<crush::Weight> Reweights(const std::optional<std::vector<double>>& weights) const {
    if (!weights) {
      return std::vector<crush::Weight>(static_cast<std::size_t>(std::max(map_.max_devices(), 0)),
                                        crush::kWeightOne);
    }
    std::vector<crush::Weight> out;
    out.reserve(weights->size());
    for (const double w : *weights) {
      if (!(w >= 0.0 && w <= 1.0)) throw py::value_error("weights must be within 0..1");
      out.push_back(static_cast<crush::Weight>(w * static_cast<double>(crush::kWeightOne)));
    }
    return out;
  }

  crush::CrushMap map_;
};

}  // namespace

void BindCrushMap(py::module_& m) {
  py::class_<PyCrushMap>(m, "CrushMap",
                         "A validated crush map. Immutable; safe to share between threads.")
      .def_static("from_binary", &PyCrushMap::FromBinary, py::arg("data"),
                  "Decodes Ceph's binary crushmap (crushtool -o, ceph osd getcrushmap). "
                  "ValueError on truncated or invalid bytes.")
      .def_static("from_text", &PyCrushMap::FromText, py::arg("text"),
                  py::arg("release") = std::nullopt,
                  "Compiles a text map as `crushtool -c` does (release: 'pacific', 'reef' or "
                  "'tentacle', the default). ValueError with the first diagnostic.")
      .def_static("from_json", &PyCrushMap::FromJson, py::arg("text"),
                  "Reads `ceph osd crush dump -f json` (or `crushtool --dump`, or a `ceph "
                  "report`'s crushmap): exact item weights, choose_args, shadow ids. ValueError "
                  "naming the JSON path of the first problem.")
      .def("to_binary", &PyCrushMap::ToBinary, "Ceph's binary encoding (bytes).")
      .def("decompile", &PyCrushMap::Decompile, py::arg("release") = std::nullopt,
           "The text `crushtool -d` prints.")
      .def("save", &PyCrushMap::Save, py::arg("path"), py::arg("text") = false,
           py::arg("release") = std::nullopt,
           "Writes Ceph's binary encoding (text=True: `crushtool -d`'s text) to `path` as the "
           "CLI writes -o: a file replaced atomically, symlinks kept, devices written in place. "
           "OSError if it cannot.")
      .def_property_readonly("max_devices", &PyCrushMap::max_devices)
      .def_property_readonly("rules", &PyCrushMap::Rules, "{rule name: rule id}")
      .def("rule_id", &PyCrushMap::RuleId, py::arg("rule"),
           "The id of a rule given by name or id; ValueError if there is none.")
      .def("rule_name", &PyCrushMap::RuleName, py::arg("rule_id"))
      .def("do_rule", &PyCrushMap::DoRule, py::arg("rule"), py::arg("x"), py::arg("size"),
           py::arg("weights") = std::nullopt, py::arg("choose_args") = 0,
           "Maps input x through a rule (id or name) to at most `size` items, as "
           "`crushtool --test --show-mappings` does. weights: one 0..1 reweight per device "
           "(default: all 1.0); devices past its end are out. choose_args: the weight set of this "
           "pool id, else the compat one (crushtool --test's 0, the default); None for none. "
           "Indep holes are ITEM_NONE.")
      .def("map_many", &PyCrushMap::MapMany, py::arg("rule"), py::arg("xs"), py::arg("size"),
           py::arg("weights") = std::nullopt, py::arg("choose_args") = 0,
           "do_rule for every x of a 1-D array, in C++ without the GIL: an int32 array of "
           "shape (len(xs), size); indep holes and slots past a shorter firstn result are "
           "ITEM_NONE (2147483647, as crushtool prints holes).");
  m.def(
      "compile_text",
      [](const std::string& text, const std::optional<std::string>& release) {
        return py::bytes(crush::EncodeCrushMap(CompileText(text, release)));
      },
      py::arg("text"), py::arg("release") = std::nullopt,
      "Text map -> Ceph's binary encoding, the bytes `crushtool -c` writes.");
}

}  // namespace crushkit::python

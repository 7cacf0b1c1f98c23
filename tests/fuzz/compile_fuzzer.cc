// Fuzz target: the text compiler and decompiler.
//
// For any input: Compile must return (a model or kInvalidArgument with a
// message), never crash, hang or throw. If it compiles:
//   t1 = Decompile(m1) must succeed and compile again to m2;
//   m2 must equal m1 except for weights: the decompiler prints weights with 3
//     decimals (as Ceph's crushtool -d does), so e.g. "weight 0.0001" comes
//     back as 0 (intentional, Ceph-compatible loss; straw lengths derived
//     from weights change with them);
//   after that one lossy step the round trip is exact: Decompile(m2) == t1
//     and the encodings of m2 and Compile(t1) agree byte for byte.
// Second intentional exception: when building the device class shadow
// trees stops early (Ceph's populate_classes() fails and crushtool -c keeps
// what it built), e.g. text that gives two class shadows the same id
// ("id -7 class hdd" in one bucket, "id -07 class ssd" in another), the
// compiler warns "device class shadow trees are incomplete" and the model
// lacks the shadows after the failure. Decompiling drops their ids, so the
// next compile builds them with fresh ids: not a fixed point, exactly as
// with Pacific crushtool -c/-d (verified on
// regressions/compile/duplicate-class-shadow-id.crush: Ceph's recompiled
// map gains default~ssd as -15). For such maps only "decompiled text
// compiles" is checked.
// Third: a map that names some type but not type 0 decompiles with
// "type 0 osd", as Ceph's CrushCompiler::decompile prints it (verified:
// crushtool -d of such a map), so m2 gains type_names[0] = "osd"; m1 is
// compared with that name added. If another type is already called "osd"
// (e.g. "type 5 osd" and no type 0), that text names "osd" twice: Ceph
// 16.2 recompiles it, crushkit's compiler refuses duplicate type names
// (golden diagnostics duplicate_type_name); only the decompile is checked.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "compiler/compile.h"
#include "compiler/source_file.h"
#include "crush/codec.h"
#include "crush/model.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using crushkit::compiler::Compile;
using crushkit::compiler::Decompile;
using crushkit::compiler::SourceFile;
using crushkit::crush::MapModel;

// m with every weight-derived field cleared.
MapModel WithoutWeights(MapModel m) {
  for (auto& b : m.buckets) {
    b.weight = 0;
    b.uniform_item_weight = 0;
    for (auto* v : {&b.item_weights, &b.sum_weights, &b.straws, &b.node_weights}) {
      for (auto& w : *v) w = 0;
    }
  }
  for (auto& [index, args] : m.choose_args) {
    for (auto& [id, arg] : args) {
      for (auto& row : arg.weight_set) {
        for (auto& w : row) w = 0;
      }
    }
  }
  return m;
}

// m with classes nothing uses dropped and class ids renumbered in name
// order, so maps that differ only in class numbering compare equal.
MapModel WithCanonicalClasses(MapModel m) {
  std::set<std::int32_t> used;
  for (const auto& [item, cls] : m.class_map) used.insert(cls);
  for (const auto& [orig, per_class] : m.class_buckets) {
    for (const auto& [cls, shadow] : per_class) used.insert(cls);
  }
  std::map<std::string, std::int32_t> by_name;
  for (const auto& [cls, name] : m.class_names) {
    if (used.count(cls) != 0) by_name.emplace(name, cls);
  }
  std::map<std::int32_t, std::int32_t> renumber;
  std::map<std::int32_t, std::string> names;
  for (const auto& [name, cls] : by_name) {
    const auto fresh = static_cast<std::int32_t>(renumber.size());
    renumber[cls] = fresh;
    names[fresh] = name;
  }
  // A class id without a name keeps its number (the compiler never makes
  // one, so this only keeps the comparison total).
  auto id = [&](std::int32_t cls) {
    auto it = renumber.find(cls);
    return it == renumber.end() ? cls : it->second;
  };
  for (auto& [item, cls] : m.class_map) cls = id(cls);
  std::map<std::int32_t, std::map<std::int32_t, std::int32_t>> buckets;
  for (const auto& [orig, per_class] : m.class_buckets) {
    for (const auto& [cls, shadow] : per_class) buckets[orig][id(cls)] = shadow;
  }
  m.class_buckets = std::move(buckets);
  m.class_names = std::move(names);
  return m;
}

// True if some class has a different id in a than in b.
bool ClassesRenumbered(const MapModel& a, const MapModel& b) {
  for (const auto& [cls, name] : b.class_names) {
    auto it = a.class_names.find(cls);
    if (it == a.class_names.end() || it->second != name) return true;
  }
  return false;
}

// True if the compiler warned that the shadow trees are incomplete (see the
// header comment).
bool ShadowTreesIncomplete(const crushkit::compiler::DiagnosticSink& sink) {
  for (const auto& d : sink.diagnostics()) {
    if (d.severity == crushkit::compiler::Severity::kWarning &&
        d.message.find("device class shadow trees are incomplete") != std::string::npos) {
      return true;
    }
  }
  return false;
}

using crushkit::crush::CephRelease;

const crushkit::compiler::CompileOptions kPacificText{.release = CephRelease::kPacific};

// Some type id >= 0 is named while "osd" names another type: the printed
// "type 0 osd" line then collides, and the text does not compile again.
bool OsdNamedElsewhere(const MapModel& m) {
  const bool any_type = std::any_of(m.type_names.begin(), m.type_names.end(),
                                    [](const auto& t) { return t.first >= 0; });
  return any_type && m.type_names.count(0) == 0 &&
         std::any_of(m.type_names.begin(), m.type_names.end(),
                     [](const auto& t) { return t.second == "osd"; });
}

// Reef and later print 5 decimals, which Ceph's float parse (and ours) does
// not read back exactly (0.00009 -> 0.00008), so the fixed-point checks run
// on the Pacific dialect; the newer dialect must still compile, decompile
// and compile again.
void CheckNewerDialect(const std::string& text) {
  const crushkit::compiler::CompileOptions tentacle{.release = CephRelease::kTentacle};
  auto m = Compile(SourceFile("fuzz.crush", text), nullptr, tentacle);
  if (!m.ok()) return;
  auto t = Decompile(*m, CephRelease::kTentacle);
  if (!t.ok() || OsdNamedElsewhere(*m)) return;
  auto again = Compile(SourceFile("tentacle.crush", *t), nullptr, tentacle);
  FUZZ_CHECK(again.ok(), "tentacle text does not compile: " + again.status().ToString() +
                             "\n--- text ---\n" + *t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  CheckNewerDialect(text);
  crushkit::compiler::DiagnosticSink sink;
  auto m1 = Compile(SourceFile("fuzz.crush", text), &sink, kPacificText);
  if (!m1.ok()) {
    FUZZ_CHECK(!m1.status().message().empty(), "error without a message");
    return 0;
  }
  auto t1 = Decompile(*m1, CephRelease::kPacific);
  if (!t1.ok()) return 0;  // e.g. a cycle, which Ceph refuses to print too
  const bool any_type = std::any_of(m1->type_names.begin(), m1->type_names.end(),
                                    [](const auto& t) { return t.first >= 0; });
  if (OsdNamedElsewhere(*m1)) return 0;
  auto m2 = Compile(SourceFile("round1.crush", *t1), nullptr, kPacificText);
  FUZZ_CHECK(m2.ok(), "decompiled text does not compile: " + m2.status().ToString() +
                          "\n--- text ---\n" + *t1);
  if (ShadowTreesIncomplete(sink)) return 0;
  MapModel expected = WithCanonicalClasses(WithoutWeights(*m1));
  // "type 0 osd" is printed only when some type id >= 0 is named.
  if (any_type) expected.type_names.try_emplace(0, "osd");
  FUZZ_CHECK(WithCanonicalClasses(WithoutWeights(*m2)) == expected,
             "compile(decompile(m)) differs from m beyond weights\n--- text ---\n" + *t1);
  auto t2 = Decompile(*m2, CephRelease::kPacific);
  FUZZ_CHECK(t2.ok(), "second decompile failed: " + t2.status().ToString());
  // Renumbered classes reorder a bucket's "id N class C" lines, so then the
  // fixed point is reached one round later.
  if (!ClassesRenumbered(*m1, *m2)) {
    FUZZ_CHECK(*t2 == *t1, "decompile is not a fixed point\n--- first ---\n" + *t1 +
                               "\n--- second ---\n" + *t2);
  }
  auto m3 = Compile(SourceFile("round2.crush", *t2), nullptr, kPacificText);
  FUZZ_CHECK(m3.ok(), "second compile failed: " + m3.status().ToString());
  auto t3 = Decompile(*m3, CephRelease::kPacific);
  FUZZ_CHECK(t3.ok() && *t3 == *t2,
             "decompile is not a fixed point after a lossless round trip\n--- second ---\n" + *t2 +
                 "\n--- third ---\n" + t3.value_or(""));
  FUZZ_CHECK(crushkit::crush::EncodeCrushMap(*m3) == crushkit::crush::EncodeCrushMap(*m2),
             "encodings differ after a lossless round trip");
  return 0;
}

#include "osdmap/formats/osd_tree.h"

#include <cstdio>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

#include "crush/builder.h"
#include "crush/edit/edit.h"
#include "crush/edit/formatter_sink.h"
#include "crush/util/text_format.h"

namespace crushkit::osdmap {
namespace {

// CrushTreeDumper::Item.
struct TreeItem {
  int id = 0;
  int parent = 0;
  int depth = 0;
  float weight = 0;
  std::vector<int> children;
};

const std::string* Lookup(const std::map<std::int32_t, std::string>& m, int key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

// CrushWrapper::get_item_class(): the class name of an item, or nullptr.
const std::string* ItemClass(const crush::MapModel& crush, int id) {
  auto it = crush.class_map.find(id);
  if (it == crush.class_map.end()) return nullptr;
  return Lookup(crush.class_names, it->second);
}

// The walk of CrushTreeDumper::Dumper::next() over the non-shadow roots
// (CrushWrapper::find_nonshadow_roots), plus OSDTree*Dumper's strays.
struct Walk {
  std::vector<TreeItem> nodes;
  std::vector<TreeItem> stray;
};

absl::StatusOr<Walk> WalkTree(const ClusterState& state) {
  const crush::MapModel& crush = state.crush;
  const std::set<crush::ItemId> roots = crush::FindNonshadowRoots(crush);
  Walk walk;
  std::set<int> touched;
  // A DAG may list a bucket under several parents (Ceph prints it under
  // each); bound the output so a hostile map cannot make us print forever.
  constexpr std::size_t kMaxRows = 1 << 22;
  const int max_depth = crush.max_buckets() + 1;
  for (int root : roots) {
    std::deque<TreeItem> q;
    const crush::Bucket* rb = crush.FindBucket(root);
    q.push_back(
        TreeItem{root, 0, 0, static_cast<float>(rb->weight) / static_cast<float>(0x10000), {}});
    while (!q.empty()) {
      TreeItem qi = std::move(q.front());
      q.pop_front();
      touched.insert(qi.id);
      if (qi.depth > max_depth || walk.nodes.size() >= kMaxRows) {
        return absl::UnimplementedError(
            "the crush hierarchy has a cycle or too many paths; Ceph's tree dump would not end");
      }
      const crush::Bucket* b = qi.id < 0 ? crush.FindBucket(qi.id) : nullptr;
      if (b != nullptr) {
        // Children sorted by (class, "osd.%08d") for devices and by "_" +
        // name for buckets; equal keys keep the lowest position.
        std::map<std::string, std::pair<int, float>> sorted;
        for (std::size_t k = b->items.size(); k-- > 0;) {
          const int id = b->items[k];
          std::string key;
          if (id >= 0) {
            const std::string* c = ItemClass(crush, id);
            char nn[32];
            std::snprintf(nn, sizeof(nn), "osd.%08d", id);
            key = absl::StrCat(c ? *c : "", "_", nn);
          } else {
            const std::string* name = Lookup(crush.item_names, id);
            if (name == nullptr) {
              // Ceph appends a null name to a std::string here (undefined).
              return absl::UnimplementedError(
                  absl::StrCat("bucket ", id, " has no name; Ceph's tree dump crashes on it"));
            }
            key = "_" + *name;
          }
          // crush_get_bucket_item_weight() returns an int.
          const auto w = static_cast<std::int32_t>(crush::BucketItemWeight(*b, k));
          sorted[key] = {id, static_cast<float>(w) / static_cast<float>(0x10000)};
        }
        for (auto it = sorted.rbegin(); it != sorted.rend(); ++it) {
          qi.children.push_back(it->second.first);
          q.push_front(TreeItem{it->second.first, qi.id, qi.depth + 1, it->second.second, {}});
        }
      }
      walk.nodes.push_back(std::move(qi));
    }
  }
  for (int i = 0; i < state.max_osd(); ++i) {
    if (state.Exists(i) && !touched.count(i)) walk.stray.push_back(TreeItem{i, 0, 0, 0, {}});
  }
  return walk;
}

std::string OsdStatus(const ClusterState& state, int id) {
  if (state.IsUp(id)) return "up";
  if (state.Exists(id) && (state.osds[static_cast<std::size_t>(id)].state & kOsdDestroyed)) {
    return "destroyed";
  }
  return "down";
}

float ReweightF(const ClusterState& state, int id) {
  return static_cast<float>(state.osds[static_cast<std::size_t>(id)].weight) /
         static_cast<float>(0x10000);
}

float PrimaryAffinityF(const ClusterState& state, int id) {
  return static_cast<float>(state.osds[static_cast<std::size_t>(id)].primary_affinity) /
         static_cast<float>(0x10000);
}

// "TYPE NAME" cell. A missing type or bucket name stops the ostringstream
// (Ceph streams a null char*, which sets badbit), so nothing after it shows.
std::string TypeNameCell(const crush::MapModel& crush, const TreeItem& qi) {
  std::string s(static_cast<std::size_t>(qi.depth) * 4, ' ');
  if (qi.id >= 0) return absl::StrCat(s, "osd.", qi.id);
  const crush::Bucket* b = crush.FindBucket(qi.id);
  // get_bucket_type() of a missing bucket is -ENOENT, a type with no name.
  const std::string* type = b ? Lookup(crush.type_names, b->type) : nullptr;
  if (type == nullptr) return s;
  absl::StrAppend(&s, *type, " ");
  const std::string* name = Lookup(crush.item_names, qi.id);
  if (name != nullptr) s += *name;
  return s;
}

// TextTable: columns as wide as their widest cell or heading, separated by
// two spaces, every row padded to all columns.
class TextTable {
 public:
  enum class Align { kLeft, kRight };

  void Column(std::string heading, Align cell_align) {
    widths_.push_back(heading.size());
    headings_.push_back(std::move(heading));
    aligns_.push_back(cell_align);
  }

  void Row(std::vector<std::string> cells) {
    cells.resize(headings_.size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (cells[i].size() > widths_[i]) widths_[i] = cells[i].size();
    }
    rows_.push_back(std::move(cells));
  }

  std::string Render() const {
    std::string out;
    Line(headings_, /*cells=*/false, &out);
    for (const auto& r : rows_) Line(r, /*cells=*/true, &out);
    return out;
  }

 private:
  void Line(const std::vector<std::string>& v, bool cells, std::string* out) const {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) *out += "  ";
      const std::size_t pad = widths_[i] - v[i].size();
      // Headings are all left-aligned.
      if (cells && aligns_[i] == Align::kRight) out->append(pad, ' ');
      *out += v[i];
      if (!cells || aligns_[i] == Align::kLeft) out->append(pad, ' ');
    }
    *out += "\n";
  }

  std::vector<std::string> headings_;
  std::vector<std::size_t> widths_;
  std::vector<Align> aligns_;
  std::vector<std::vector<std::string>> rows_;
};

void PlainRow(const ClusterState& state, const TreeItem& qi, TextTable* tbl) {
  const std::string* c = ItemClass(state.crush, qi.id);
  std::vector<std::string> row = {absl::StrCat(qi.id), c ? *c : "", FormatWeightF(qi.weight),
                                  TypeNameCell(state.crush, qi)};
  if (qi.id >= 0) {
    if (!state.Exists(qi.id)) {
      row.push_back("DNE");
      row.push_back("0");
    } else {
      row.push_back(OsdStatus(state, qi.id));
      row.push_back(FormatWeightF(ReweightF(state, qi.id)));
      row.push_back(FormatWeightF(PrimaryAffinityF(state, qi.id)));
    }
  }
  tbl->Row(std::move(row));
}

// JSONFormatter (compact): doubles with max_digits10 significant digits,
// strings through json_stream_escaper(), names only inside objects.
class CompactJsonSink final : public crush::FormatterSink {
 public:
  void OpenObject(std::string_view name) override { Open(name, '{', false); }

  void OpenArray(std::string_view name) override { Open(name, '[', true); }

  void Close() override {
    out_ += stack_.back().array ? ']' : '}';
    stack_.pop_back();
  }

  void DumpInt(std::string_view name, std::int64_t v) override { Value(name, absl::StrCat(v)); }

  void DumpUnsigned(std::string_view name, std::uint64_t v) override {
    Value(name, absl::StrCat(v));
  }

  void DumpFloat(std::string_view name, double v) override {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    Value(name, buf);
  }

  void DumpString(std::string_view name, std::string_view v) override {
    Value(name, "\"" + util::CephJsonEscape(std::string(v)) + "\"");
  }

  void DumpStream(std::string_view name, std::string_view v) override { DumpString(name, v); }

  std::string Take() { return std::move(out_); }

 private:
  struct Level {
    bool array;
    bool first = true;
  };

  void Prefix(std::string_view name) {
    if (stack_.empty()) return;
    if (!stack_.back().first) out_ += ',';
    stack_.back().first = false;
    if (!stack_.back().array)
      absl::StrAppend(&out_, "\"", util::CephJsonEscape(std::string(name)), "\":");
  }

  void Open(std::string_view name, char bracket, bool array) {
    Prefix(name);
    out_ += bracket;
    stack_.push_back({array});
  }

  void Value(std::string_view name, const std::string& v) {
    Prefix(name);
    out_ += v;
  }

  std::vector<Level> stack_;
  std::string out_;
};

// CrushTreeDumper::FormattingDumper::dump_item: dump_item_fields() with
// OSDTreeFormattingDumper's extras, then a bucket's children.
absl::Status DumpItem(const ClusterState& state, const TreeItem& qi, crush::FormatterSink& f) {
  const crush::MapModel& crush = state.crush;
  // Checked first: Ceph crashes on these, and nothing of the item is out yet.
  const crush::Bucket* bucket = qi.id < 0 ? crush.FindBucket(qi.id) : nullptr;
  const std::string* name = qi.id < 0 ? Lookup(crush.item_names, qi.id) : nullptr;
  const std::string* type = qi.id < 0 ? (bucket ? Lookup(crush.type_names, bucket->type) : nullptr)
                                      : Lookup(crush.type_names, 0);
  if (qi.id < 0 && (bucket == nullptr || name == nullptr || type == nullptr)) {
    return absl::UnimplementedError(absl::StrCat(
        "bucket ", qi.id, " lacks a name or type name; Ceph's JSON tree dump crashes on it"));
  }
  if (qi.id >= 0 && type == nullptr) {
    return absl::UnimplementedError("type 0 has no name; Ceph's JSON tree dump crashes on it");
  }
  f.OpenObject("item");
  f.DumpInt("id", qi.id);
  if (const std::string* c = ItemClass(crush, qi.id)) f.DumpString("device_class", *c);
  if (qi.id < 0) {
    f.DumpString("name", *name);
    f.DumpString("type", *type);
    f.DumpInt("type_id", bucket->type);
  } else {
    f.DumpStream("name", absl::StrCat("osd.", qi.id));
    f.DumpString("type", *type);
    f.DumpInt("type_id", 0);
    f.DumpFloat("crush_weight", qi.weight);
    f.DumpUnsigned("depth", static_cast<std::uint64_t>(qi.depth));
  }
  if (qi.parent < 0) {
    f.OpenObject("pool_weights");
    const crush::Bucket* b = crush.FindBucket(qi.parent);
    for (const auto& [index, args] : crush.choose_args) {
      auto it = args.find(qi.parent);
      if (b == nullptr || it == args.end() || it->second.weight_set.empty()) continue;
      const auto& ws = it->second.weight_set;
      std::size_t pos = 0;
      while (pos < ws[0].size() && pos < b->items.size() && b->items[pos] != qi.id) ++pos;
      std::string set_name;
      if (index == crush::kCompatChooseArgs) {
        set_name = "(compat)";
      } else if (const Pool* p = state.FindPool(index)) {
        set_name = p->name;
      } else {
        set_name = absl::StrCat(index);
      }
      for (const auto& position : ws) {
        if (pos >= position.size()) {
          return absl::UnimplementedError(absl::StrCat("weight set of bucket ", qi.parent,
                                                       " has no entry for item ", qi.id,
                                                       "; Ceph reads past its end"));
        }
      }
      f.OpenArray(set_name);
      for (const auto& position : ws) {
        f.DumpFloat("weight", static_cast<float>(position[pos]) / static_cast<float>(0x10000));
      }
      f.Close();
    }
    f.Close();
  }
  if (qi.id >= 0) {
    f.DumpUnsigned("exists", state.Exists(qi.id) ? 1 : 0);
    f.DumpString("status", OsdStatus(state, qi.id));
    f.DumpFloat("reweight", qi.id < state.max_osd() ? ReweightF(state, qi.id) : 0.0f);
    f.DumpFloat("primary_affinity",
                qi.id < state.max_osd() ? PrimaryAffinityF(state, qi.id) : 1.0f);
  } else {
    f.OpenArray("children");
    for (int child : qi.children) f.DumpInt("child", child);
    f.Close();
  }
  f.Close();
  return absl::OkStatus();
}

}  // namespace

std::string FormatWeightF(float v) {
  if (v < -0.01F) return "-";
  if (v < 0.000001F) return "0";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.5f", static_cast<double>(v));
  return buf;
}

absl::StatusOr<std::string> FormatOsdTreePlain(const ClusterState& state) {
  auto walk = WalkTree(state);
  if (!walk.ok()) return walk.status();
  TextTable tbl;
  using Align = TextTable::Align;
  tbl.Column("ID", Align::kRight);
  tbl.Column("CLASS", Align::kRight);
  tbl.Column("WEIGHT", Align::kRight);
  tbl.Column("TYPE NAME", Align::kLeft);
  tbl.Column("STATUS", Align::kRight);
  tbl.Column("REWEIGHT", Align::kRight);
  tbl.Column("PRI-AFF", Align::kRight);
  for (const TreeItem& qi : walk->nodes) PlainRow(state, qi, &tbl);
  for (const TreeItem& qi : walk->stray) PlainRow(state, qi, &tbl);
  return tbl.Render();
}

absl::Status DumpOsdTree(const ClusterState& state, crush::FormatterSink& f) {
  auto walk = WalkTree(state);
  if (!walk.ok()) return walk.status();
  f.OpenArray("nodes");
  for (const TreeItem& qi : walk->nodes) {
    if (auto s = DumpItem(state, qi, f); !s.ok()) return s;
  }
  f.Close();
  f.OpenArray("stray");
  for (const TreeItem& qi : walk->stray) {
    if (auto s = DumpItem(state, qi, f); !s.ok()) return s;
  }
  f.Close();
  return absl::OkStatus();
}

absl::StatusOr<std::string> FormatOsdTreeJson(const ClusterState& state) {
  CompactJsonSink f;
  f.OpenObject("tree");
  if (auto s = DumpOsdTree(state, f); !s.ok()) return s;
  f.Close();
  return f.Take() + "\n";
}

absl::StatusOr<std::string> FormatOsdTreeJsonPretty(const ClusterState& state) {
  auto compact = FormatOsdTreeJson(state);
  if (!compact.ok()) return compact.status();
  // Re-lays the compact text out as JSONFormatter does with m_pretty
  // (print_comma/open_section/close_section): the tokens are identical, only
  // the whitespace differs, so this is a layout pass, not a second emitter.
  const std::string& c = *compact;
  std::string out;
  int depth = 0;
  bool in_string = false;
  auto newline = [&out, &depth] {
    out += '\n' + std::string(static_cast<std::size_t>(depth) * 4, ' ');
  };
  for (std::size_t i = 0; i < c.size(); ++i) {
    const char ch = c[i];
    if (in_string) {
      out += ch;
      if (ch == '\\' && i + 1 < c.size()) {
        out += c[++i];
      } else if (ch == '"') {
        in_string = false;
      }
      continue;
    }
    switch (ch) {
      case '"':
        in_string = true;
        out += ch;
        break;
      case '{':
      case '[':
        out += ch;
        if (i + 1 < c.size() && (c[i + 1] == '}' || c[i + 1] == ']')) {
          out += c[++i];
        } else {
          ++depth;
          newline();
        }
        break;
      case '}':
      case ']':
        --depth;
        newline();
        out += ch;
        break;
      case ',':
        out += ch;
        newline();
        break;
      case ':':
        out += ": ";
        break;
      case '\n':
        break;
      default:
        out += ch;
    }
  }
  return out + "\n\n";
}

}  // namespace crushkit::osdmap

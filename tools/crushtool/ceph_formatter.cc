#include "tools/crushtool/ceph_formatter.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "crush/util/text_format.h"

namespace crushkit::tools::crushtool {
namespace {

// ostream << double at precision 17 (JSON/XML/table set max_digits10) or
// at the default 6 (html never sets it): printf's %.*g.
std::string FormatDouble(double v, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
  return buf;
}

class JsonFormatter final : public CephFormatter {
 public:
  explicit JsonFormatter(bool pretty) : pretty_(pretty) {}

  void OpenObject(std::string_view name) override { Open(name, false); }

  void OpenArray(std::string_view name) override { Open(name, true); }

  void Close() override {
    if (stack_.empty()) return;
    const Entry& e = stack_.back();
    if (pretty_ && e.size > 0) {
      out_ += "\n";
      Indent();
    }
    out_ += e.is_array ? ']' : '}';
    stack_.pop_back();
    if (pretty_ && stack_.empty()) out_ += "\n";
  }

  void DumpInt(std::string_view name, std::int64_t v) override { Value(name, std::to_string(v)); }

  void DumpUnsigned(std::string_view name, std::uint64_t v) override {
    Value(name, std::to_string(v));
  }

  void DumpFloat(std::string_view name, double v) override { Value(name, FormatDouble(v, 17)); }

  void DumpString(std::string_view name, std::string_view v) override {
    std::string quoted(1, '"');
    quoted.append(util::CephJsonEscape(v)).push_back('"');
    Value(name, quoted);
  }

  void DumpBool(std::string_view name, bool v) override { Value(name, v ? "true" : "false"); }

  std::string Flush() override { return std::exchange(out_, {}); }

 private:
  struct Entry {
    bool is_array = false;
    int size = 0;
  };

  // One four-space step per open section below the outermost.
  void Indent() {
    for (std::size_t i = 1; i < stack_.size(); ++i) out_ += "    ";
  }

  // print_name(): the comma/newline before an entry, then "name": unless in
  // an array. Nothing at all outside any section.
  void Name(std::string_view name) {
    if (stack_.empty()) return;
    Entry& e = stack_.back();
    if (e.size > 0) {
      out_ += pretty_ ? ",\n" : ",";
      if (pretty_) Indent();
    } else if (pretty_) {
      out_ += "\n";
      Indent();
    }
    if (pretty_ && e.is_array) out_ += "    ";
    if (!e.is_array) {
      if (pretty_) out_ += "    ";
      out_ += "\"";
      out_ += name;
      out_ += pretty_ ? "\": " : "\":";
    }
    ++e.size;
  }

  void Open(std::string_view name, bool is_array) {
    Name(name);
    out_ += is_array ? '[' : '{';
    stack_.push_back(Entry{is_array, 0});
  }

  void Value(std::string_view name, const std::string& text) {
    Name(name);
    out_ += text;
  }

  bool pretty_;
  std::vector<Entry> stack_;
  std::string out_;
};

// XMLFormatter(pretty, lowercased = false, underscored = true), and
// HTMLFormatter, which shares its sections and prints values as
// "<li>name: value</li>".
class XmlFormatter final : public CephFormatter {
 public:
  XmlFormatter(bool pretty, bool html) : pretty_(pretty), html_(html) {}

  void OpenObject(std::string_view name) override { Open(name); }

  void OpenArray(std::string_view name) override { Open(name); }

  void Close() override {
    if (sections_.empty()) return;
    const std::string section = Element(sections_.back());
    sections_.pop_back();
    Spaces();
    out_.append("</").append(section).append(">");
    if (pretty_) out_ += "\n";
  }

  void DumpInt(std::string_view name, std::int64_t v) override { Value(name, std::to_string(v)); }

  void DumpUnsigned(std::string_view name, std::uint64_t v) override {
    Value(name, std::to_string(v));
  }

  void DumpFloat(std::string_view name, double v) override {
    Value(name, FormatDouble(v, html_ ? 6 : 17));
  }

  void DumpString(std::string_view name, std::string_view v) override { Value(name, XmlEscape(v)); }

  std::string Flush() override {
    if (pretty_ && !out_.empty()) out_ += "\n";
    return std::exchange(out_, {});
  }

 private:
  static std::string Element(std::string_view name) {
    std::string e(name);
    std::replace(e.begin(), e.end(), ' ', '_');
    return e;
  }

  void Spaces() {
    if (pretty_) out_.append(sections_.size(), ' ');
  }

  void Open(std::string_view name) {
    Spaces();
    out_.append("<").append(Element(name)).append(">");
    if (pretty_) out_ += "\n";
    sections_.emplace_back(name);
  }

  void Value(std::string_view name, const std::string& text) {
    Spaces();
    if (html_) {
      out_ += "<li>";
      out_ += name;
      out_.append(": ").append(text).append("</li>");
    } else {
      const std::string e = Element(name);
      out_.append("<").append(e).append(">").append(text).append("</").append(e).append(">");
    }
    if (pretty_) out_ += "\n";
  }

  bool pretty_;
  bool html_;
  std::vector<std::string> sections_;
  std::string out_;
};

// TableFormatter(keyval): every value becomes a (section path[n], value)
// cell; a new row starts only when a key equals the first cell's name,
// which, once a section is open, never happens (the cell names carry the
// section path), so a dump is one row: a header, the row and a trailer, or
// for table-kv one line of key::NAME="VALUE" cells.
class TableFormatter final : public CephFormatter {
 public:
  explicit TableFormatter(bool keyval) : keyval_(keyval) {}

  void OpenObject(std::string_view name) override { Open(name); }

  void OpenArray(std::string_view name) override { Open(name); }

  void Close() override {
    --section_open_;
    if (!sections_.empty()) {
      counts_[sections_.back()] = 0;  // keyed by the bare name, as Ceph does
      sections_.pop_back();
    }
  }

  void DumpInt(std::string_view name, std::int64_t v) override {
    FinishPending();
    Cell(name, std::to_string(v));
  }

  void DumpUnsigned(std::string_view name, std::uint64_t v) override {
    FinishPending();
    Cell(name, std::to_string(v));
  }

  void DumpFloat(std::string_view name, double v) override {
    FinishPending();
    Cell(name, FormatDouble(v, 17));
  }

  void DumpString(std::string_view name, std::string_view v) override {
    FinishPending();
    Cell(name, std::string(v));
  }

  // TableFormatter::dump_stream keeps the value pending; open and close do
  // not file it, so a stream dumped last in a section lands in the next
  // one's path.
  void DumpStream(std::string_view name, std::string_view v) override {
    FinishPending();
    pending_name_ = name;
    pending_value_ = v;
  }

  std::string Flush() override;

 private:
  void Open(std::string_view name) {
    sections_.emplace_back(name);
    ++section_open_;
  }

  std::string SectionName(std::string_view name) {
    std::string t(name);
    for (const std::string& s : sections_) t.insert(0, s + ":");
    if (section_open_ == 0) return t;
    const int n = counts_[t]++;
    return t.append("[").append(std::to_string(n)).append("]");
  }

  // finish_pending_string(): an empty pending name counts as none.
  void FinishPending() {
    if (pending_name_.empty()) return;
    const std::string name = std::move(pending_name_);
    pending_name_.clear();
    Cell(name, std::move(pending_value_));
  }

  void Cell(std::string_view name, std::string value) {
    if (rows_.empty()) rows_.resize(1);
    if (!rows_.back().empty() && rows_.back().front().first == name) rows_.resize(rows_.size() + 1);
    std::string cell_name = SectionName(name);
    rows_.back().emplace_back(std::move(cell_name), std::move(value));
  }

  bool keyval_;
  std::string pending_name_;
  std::string pending_value_;
  std::vector<std::string> sections_;
  int section_open_ = 0;
  std::map<std::string, int> counts_;
  std::vector<std::vector<std::pair<std::string, std::string>>> rows_;
};

std::string TableFormatter::Flush() {
  FinishPending();
  std::vector<std::size_t> width;
  for (const auto& row : rows_) {
    if (width.size() < row.size()) width.resize(row.size());
    for (std::size_t j = 0; j < row.size(); ++j) {
      width[j] = std::max({width[j], row[j].first.size(), row[j].second.size()});
    }
  }
  auto pad = [](const std::string& s, std::size_t w) {
    return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
  };
  std::string out;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const auto& row = rows_[i];
    auto rule = [&] {
      out += "+";
      for (std::size_t j = 0; j < row.size(); ++j) out.append(width[j] + 3, '-').append("+");
      out += "\n";
    };
    if (i == 0 && !keyval_) {
      rule();
      out += "|";
      for (std::size_t j = 0; j < row.size(); ++j)
        out.append(" ").append(pad(row[j].first, width[j] + 2)).append("|");
      out += "\n";
      rule();
    }
    if (!keyval_) out += "|";
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (keyval_) {
        out.append("key::").append(row[j].first).append("=\"").append(row[j].second).append("\" ");
      } else {
        out.append(" ").append(pad(row[j].second, width[j] + 2)).append("|");
      }
    }
    out += "\n";
    if (!keyval_ && i + 1 == rows_.size()) rule();
  }
  rows_.clear();
  return out;
}

}  // namespace

std::unique_ptr<CephFormatter> CephFormatter::Create(std::string_view type) {
  if (type == "json") return std::make_unique<JsonFormatter>(false);
  if (type == "xml") return std::make_unique<XmlFormatter>(false, false);
  if (type == "xml-pretty") return std::make_unique<XmlFormatter>(true, false);
  if (type == "table") return std::make_unique<TableFormatter>(false);
  if (type == "table-kv") return std::make_unique<TableFormatter>(true);
  if (type == "html") return std::make_unique<XmlFormatter>(false, true);
  if (type == "html-pretty") return std::make_unique<XmlFormatter>(true, true);
  return std::make_unique<JsonFormatter>(true);
}

std::string XmlEscape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        if ((c < 0x20 && c != 0x09 && c != 0x0a) || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "&#x%02x;", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

}  // namespace crushkit::tools::crushtool

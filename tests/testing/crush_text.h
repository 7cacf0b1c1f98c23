// Crush map source text for tests that compile a small map (with crushkit's
// compiler or Ceph's crushtool): the common device/type/host/root part, so a
// test spells out only its rules.
#ifndef CRUSHKIT_TESTS_TESTING_CRUSH_TEXT_H_
#define CRUSHKIT_TESTS_TESTING_CRUSH_TEXT_H_

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace crush_testing {

// Devices osd.0 .. osd.n-1 (numbered host by host), types 0 osd, 1 host,
// 2 root, straw2 hosts h0, h1, ... (ids -2, -3, ...) holding
// host_osd_weights[i], and a straw2 root "default" (id -1) holding every
// host at the sum of its weights; weights printed "%.3f" as crushtool -d
// does. Rules are the test's own text (or ChooseleafHostsRuleText),
// appended to this.
inline std::string HostsAndRootText(const std::vector<std::vector<double>>& host_osd_weights) {
  // Appends only: GCC 12 warns (-Wrestrict, a false positive) on
  // "literal" + std::string temporaries.
  const auto weight = [](double w) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.3f", w);
    return std::string(buf);
  };
  std::string devices;
  std::string hosts;
  std::string root = "root default {\n\tid -1\n\talg straw2\n\thash 0\n";
  int osd = 0;
  for (std::size_t h = 0; h < host_osd_weights.size(); ++h) {
    std::string name = "h";
    name += std::to_string(h);
    hosts.append("host ").append(name).append(" {\n\tid ");
    hosts.append(std::to_string(-2 - static_cast<int>(h))).append("\n\talg straw2\n\thash 0\n");
    double sum = 0;
    for (double w : host_osd_weights[h]) {
      const std::string n = std::to_string(osd);
      devices.append("device ").append(n).append(" osd.").append(n).append("\n");
      hosts.append("\titem osd.").append(n).append(" weight ").append(weight(w)).append("\n");
      sum += w;
      ++osd;
    }
    hosts.append("}\n");
    root.append("\titem ").append(name).append(" weight ").append(weight(sum)).append("\n");
  }
  return devices.append("type 0 osd\ntype 1 host\ntype 2 root\n")
      .append(hosts)
      .append(root)
      .append("}\n");
}

// A replicated rule `id` named `name` (none when empty: "rule {", a quirk
// Ceph's compiler accepts) spreading over hosts: take default, chooseleaf
// firstn 0 type host, emit; min_size 1, max_size 10.
inline std::string ChooseleafHostsRuleText(const std::string& name, int id) {
  std::string text = "rule ";
  if (!name.empty()) text.append(name).append(" ");
  text.append("{\n\tid ").append(std::to_string(id));
  text.append(
      "\n\ttype replicated\n\tmin_size 1\n\tmax_size 10\n\tstep take default\n"
      "\tstep chooseleaf firstn 0 type host\n\tstep emit\n}\n");
  return text;
}

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_CRUSH_TEXT_H_

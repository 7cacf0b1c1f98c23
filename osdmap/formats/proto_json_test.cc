#include "osdmap/formats/proto_json.h"

#include <gtest/gtest.h>

#include <string>

#include "osdmap/proto/movement.pb.h"

namespace crushkit::osdmap {
namespace {

// A report with fields before and after its upmap plan, and strings that
// look like the layout's keys and closing lines (escaped, never raw).
proto::MovementReport Report() {
  proto::MovementReport r;
  r.add_pools()->set_pool_name("rbd");
  r.mutable_totals()->set_pgs(7);
  proto::UpmapPlan* plan = r.mutable_upmap_plan();
  plan->set_max_misplaced(0.05);
  plan->set_pinned(3);
  for (const char* c : {"ceph osd pg-upmap-items 1.0 3 4", "a\n \"batches\": [\n ]\n }",
                        "quote \" tab \t \xc3\xa9"}) {
    plan->add_pin_commands(c);
  }
  plan->add_unpinnable()->set_pgid("1.9");
  for (int i = 1; i <= 2; ++i) {
    proto::UpmapBatch* b = plan->add_batches();
    b->set_index(static_cast<unsigned>(i));
    b->add_pgids("1.0");
    b->add_commands("ceph osd rm-pg-upmap-items 1.0");
    b->mutable_peak_fill()->set_osd(i);
  }
  plan->mutable_immediate()->add_pgids("1.9");
  r.add_warnings()->set_message("after the plan");
  return r;
}

// Printed apart and put in place, the text is ProtoToJson's, byte for byte.
TEST(ProtoJsonTest, FieldsPrintedApartReadAsThoughPrintedTogether) {
  const absl::StatusOr<std::string> whole = ProtoToJson(Report(), /*print_defaults=*/true);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_NE(whole->find("\"batches\": [\n   {"), std::string::npos);  // depth 2, then 3
  for (const char* inner : {"batches", "immediate", "pin_commands", "", "no_such_field"}) {
    proto::MovementReport r = Report();
    const absl::StatusOr<std::string> apart = ProtoToJsonApart(&r, "upmap_plan", inner);
    ASSERT_TRUE(apart.ok()) << apart.status();
    EXPECT_EQ(*apart, *whole) << inner;
  }
}

// A field that is not set, or not a message, is printed with the rest.
TEST(ProtoJsonTest, NothingApartWhenTheFieldIsNotThere) {
  proto::MovementReport r = Report();
  r.clear_upmap_plan();
  const absl::StatusOr<std::string> whole = ProtoToJson(r, /*print_defaults=*/true);
  ASSERT_TRUE(whole.ok()) << whole.status();
  proto::MovementReport copy = r;
  EXPECT_EQ(*ProtoToJsonApart(&copy, "upmap_plan", "batches"), *whole);
  copy = r;
  EXPECT_EQ(*ProtoToJsonApart(&copy, "pools", ""), *whole);
  EXPECT_EQ(whole->find("upmap_plan"), std::string::npos);
}

}  // namespace
}  // namespace crushkit::osdmap

// abi_check.cpp — run on a machine with oneAPI (docs/xpti.md §12.4 "Opt-in
// job on real hardware"): compiled against the installed XPTI headers, it
// prints the layouts and values zestall relies on and compares each with
// the constant zestall uses (cgo/xpti.c, test/xpti/xpti_abi.h). Exit 0 when
// all agree, 1 otherwise. Not built where the headers are missing (CMake
// looks for xpti/xpti_data_types.h); nothing of the oneAPI machine is
// committed.
//
//   g++ -std=c++17 -I$ONEAPI_ROOT/include abi_check.cpp -o abi_check && ./abi_check
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include <xpti/xpti_data_types.h>

static int failures;

static void check(const char *what, long long got, long long want) {
    std::printf("%-48s %8lld  zestall %8lld  %s\n", what, got, want, got == want ? "ok" : "DIFFERS");
    if (got != want) failures++;
}

int main() {
    // docs/xpti.md §5.1 "xpti::payload_t — 80 bytes (legacy and current generation)"
    check("sizeof(payload_t)", sizeof(xpti::payload_t), 80);
    check("offsetof(payload_t, name)", offsetof(xpti::payload_t, name), 0);
    check("offsetof(payload_t, source_file)", offsetof(xpti::payload_t, source_file), 16);
    check("offsetof(payload_t, line_no)", offsetof(xpti::payload_t, line_no), 24);
    check("offsetof(payload_t, column_no)", offsetof(xpti::payload_t, column_no), 28);
    check("offsetof(payload_t, flags)", offsetof(xpti::payload_t, flags), 48);
    // docs/xpti.md §5.2 "xpti::trace_event_data_t — treat as opaque"
    check("offsetof(trace_event_data_t, unique_id)", offsetof(xpti::trace_event_data_t, unique_id), 0);
    check("offsetof(trace_event_data_t, source_id)", offsetof(xpti::trace_event_data_t, source_id), 32);
    check("offsetof(trace_event_data_t, target_id)", offsetof(xpti::trace_event_data_t, target_id), 40);
    // docs/xpti.md §5.4 "xpti::object_data_t"
    check("sizeof(object_data_t)", sizeof(xpti::object_data_t), 24);
    check("offsetof(object_data_t, data)", offsetof(xpti::object_data_t, data), 8);
    check("offsetof(object_data_t, type)", offsetof(xpti::object_data_t, type), 16);
    // docs/xpti.md §4.2 "xpti::trace_point_type_t (uint16)"
    using tp = xpti::trace_point_type_t;
    check("node_create", (long long)tp::node_create, 4);
    check("edge_create", (long long)tp::edge_create, 6);
    check("task_begin", (long long)tp::task_begin, 10);
    check("task_end", (long long)tp::task_end, 11);
    check("barrier_begin", (long long)tp::barrier_begin, 12);
    check("barrier_end", (long long)tp::barrier_end, 13);
    check("wait_begin", (long long)tp::wait_begin, 22);
    check("wait_end", (long long)tp::wait_end, 23);
    // docs/xpti.md §4.3 "Other enumerations"
    using pf = xpti::payload_flag_t;
    check("NameAvailable", (long long)pf::NameAvailable, 1);
    check("SourceFileAvailable", (long long)pf::SourceFileAvailable, 2);
    check("LineInfoAvailable", (long long)pf::LineInfoAvailable, 8);
    check("ColumnInfoAvailable", (long long)pf::ColumnInfoAvailable, 16);
    check("metadata string", (long long)xpti::metadata_type_t::string, 1);
    std::printf("%s\n", failures ? "the installed XPTI differs from what zestall reads" : "all agree");
    return failures ? 1 : 0;
}

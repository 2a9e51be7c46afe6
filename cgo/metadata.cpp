// metadata.cpp — the one piece of C++ in zestall: reading an XPTI metadata
// map. The dispatcher hands subscribers a std::unordered_map<string_id_t,
// object_id_t> (libstdc++), which C cannot read (docs/xpti.md §5.5
// "Metadata access rules"). The Level-Zero loader is C++ too, so
// libstdc++ is in every process zestall profiles.
#include <cstdint>
#include <unordered_map>

extern "C" int32_t zx_metadata_find(const void *map, int32_t key) {
    const auto *m = static_cast<const std::unordered_map<int32_t, int32_t> *>(map);
    auto it = m->find(key);
    return it == m->end() ? -1 : it->second;
}

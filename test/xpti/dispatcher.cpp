// dispatcher.cpp — a stand-in for the XPTI dispatcher (libxptifw.so),
// written by this project from the contract in docs/xpti.md §12.2
// "Stand-in dispatcher and runtime, written from the documented ABI": it
// loads the subscribers XPTI_SUBSCRIBERS names when XPTI_TRACE_ENABLE is
// on (RTLD_LAZY, local), rules out one without both exports, calls their
// xptiTraceInit/xptiTraceFinish per stream, keeps string, object and
// callback tables whose entries never move, makes a new event per
// instance with a std::unordered_map<int32_t, int32_t> of object ids as
// metadata, stashes one tuple per thread, and notifies on the calling
// thread with no lock held.
//
// Variants (compile definitions): STANDIN_NO_STASH leaves out
// xptiGetStashedTuple (dispatchers before compiler 2024.1.1);
// STANDIN_NO_QUERY_PAYLOAD leaves out xptiQueryPayload (an incomplete
// dispatcher).
#include "xpti_abi.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

struct Event {
    xpti_event_t base;  // first: the pointer handed out is &base
    xpti_payload_t payload;
    std::unordered_map<int32_t, int32_t> metadata;
};

struct Object {
    std::string data;
    uint8_t type;
};

struct Subscriber {
    void *handle;
    xpti_trace_init_t init;
    xpti_trace_finish_t finish;
};

std::mutex mu;
std::once_flag loaded;
int refs;
bool enabled;
std::vector<Subscriber> subscribers;
std::map<std::string, uint8_t> streams;
std::map<std::pair<uint8_t, uint16_t>, std::vector<xpti_callback_t>> callbacks;
std::deque<std::string> strings;  // never moves: ids index it
std::unordered_map<std::string, int32_t> string_ids;
std::deque<Object> objects;
std::deque<Event> events;
std::map<std::string, uint64_t> instances;  // per trace point
std::atomic<uint64_t> unique{1};

thread_local const char *stash_key;
thread_local uint64_t stash_value;

bool env_on(const char *v) { return v != nullptr && (std::strcmp(v, "1") == 0 || std::strcmp(v, "true") == 0); }

void load() {
    enabled = env_on(std::getenv("XPTI_TRACE_ENABLE"));
    const char *list = std::getenv("XPTI_SUBSCRIBERS");
    if (!enabled || list == nullptr) return;
    std::string all(list);
    size_t pos = 0;
    while (pos <= all.size()) {
        size_t end = all.find(',', pos);
        if (end == std::string::npos) end = all.size();
        std::string path = all.substr(pos, end - pos);
        pos = end + 1;
        if (path.empty()) continue;
        void *h = dlopen(path.c_str(), RTLD_LAZY);
        if (h == nullptr) {
            std::fprintf(stderr, "xpti stand-in: cannot load subscriber %s: %s\n", path.c_str(), dlerror());
            continue;
        }
        auto init = reinterpret_cast<xpti_trace_init_t>(dlsym(h, "xptiTraceInit"));
        auto finish = reinterpret_cast<xpti_trace_finish_t>(dlsym(h, "xptiTraceFinish"));
        if (init == nullptr || finish == nullptr) {
            std::fprintf(stderr, "xpti stand-in: %s is an invalid plugin (no xptiTraceInit/xptiTraceFinish)\n",
                         path.c_str());
            dlclose(h);
            continue;
        }
        subscribers.push_back({h, init, finish});
    }
}

void ensure_loaded() { std::call_once(loaded, load); }

int32_t register_string_locked(const char *s) {
    auto it = string_ids.find(s);
    if (it != string_ids.end()) return it->second;
    strings.emplace_back(s);
    int32_t id = static_cast<int32_t>(strings.size());  // from 1
    string_ids.emplace(strings.back(), id);
    return id;
}

const char *stored(const char *s) {
    if (s == nullptr) return nullptr;
    return strings[register_string_locked(s) - 1].c_str();
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void xptiFrameworkInitialize(void) {
    ensure_loaded();
    std::lock_guard<std::mutex> l(mu);
    refs++;
}

__attribute__((visibility("default"))) void xptiFrameworkFinalize(void) {
    std::vector<Subscriber> gone;
    {
        std::lock_guard<std::mutex> l(mu);
        if (refs == 0 || --refs > 0) return;
        gone.swap(subscribers);
        callbacks.clear();
    }
    for (auto &s : gone) dlclose(s.handle);
}

__attribute__((visibility("default"))) bool xptiTraceEnabled(void) {
    ensure_loaded();
    std::lock_guard<std::mutex> l(mu);
    return enabled && !subscribers.empty();
}

__attribute__((visibility("default"))) int32_t xptiInitialize(const char *stream, uint32_t maj, uint32_t min,
                                                              const char *version) {
    std::unique_lock<std::mutex> l(mu);
    const std::vector<Subscriber> subs(subscribers);  // called without the lock
    l.unlock();
    for (auto &s : subs) s.init(maj, min, version, stream);
    return XPTI_RESULT_SUCCESS;
}

__attribute__((visibility("default"))) void xptiFinalize(const char *stream) {
    std::unique_lock<std::mutex> l(mu);
    const std::vector<Subscriber> subs(subscribers);  // called without the lock
    l.unlock();
    for (auto &s : subs) s.finish(stream);
}

__attribute__((visibility("default"))) uint8_t xptiRegisterStream(const char *name) {
    std::lock_guard<std::mutex> l(mu);
    auto it = streams.find(name);
    if (it != streams.end()) return it->second;
    uint8_t id = static_cast<uint8_t>(streams.size() + 1);
    streams.emplace(name, id);
    return id;
}

__attribute__((visibility("default"))) int32_t xptiRegisterCallback(uint8_t stream, uint16_t type,
                                                                    xpti_callback_t cb) {
    if (cb == nullptr) return XPTI_RESULT_INVALIDARG;
    std::lock_guard<std::mutex> l(mu);
    auto &v = callbacks[{stream, type}];
    for (auto c : v)
        if (c == cb) return XPTI_RESULT_DUPLICATE;
    v.push_back(cb);
    return XPTI_RESULT_SUCCESS;
}

__attribute__((visibility("default"))) int32_t xptiUnregisterCallback(uint8_t stream, uint16_t type,
                                                                      xpti_callback_t cb) {
    std::lock_guard<std::mutex> l(mu);
    auto &v = callbacks[{stream, type}];
    for (size_t i = 0; i < v.size(); i++)
        if (v[i] == cb) {
            v.erase(v.begin() + static_cast<long>(i));
            return XPTI_RESULT_SUCCESS;
        }
    return XPTI_RESULT_NOTFOUND;
}

__attribute__((visibility("default"))) bool xptiCheckTraceEnabled(uint16_t stream, uint16_t type) {
    std::lock_guard<std::mutex> l(mu);
    for (auto &kv : callbacks)
        if (kv.first.first == stream && (type == 0 || kv.first.second == type) && !kv.second.empty()) return true;
    return false;
}

__attribute__((visibility("default"))) int32_t xptiNotifySubscribers(uint8_t stream, uint16_t type,
                                                                     xpti_event_t *parent, xpti_event_t *event,
                                                                     uint64_t instance, const void *user_data) {
    std::unique_lock<std::mutex> l(mu);
    auto it = callbacks.find({stream, type});
    if (it == callbacks.end()) return XPTI_RESULT_SUCCESS;
    const std::vector<xpti_callback_t> cbs(it->second);
    l.unlock();
    for (auto cb : cbs) cb(type, parent, event, instance, user_data);  // no lock held
    return XPTI_RESULT_SUCCESS;
}

__attribute__((visibility("default"))) xpti_event_t *xptiMakeEvent(const char *name, xpti_payload_t *payload,
                                                                   uint16_t event_type, int activity,
                                                                   uint64_t *instance_no) {
    std::lock_guard<std::mutex> l(mu);
    events.emplace_back();
    Event &e = events.back();
    std::memset(&e.base, 0, sizeof e.base);
    if (payload != nullptr) {
        e.payload = *payload;
        e.payload.name = stored(payload->name);
        e.payload.source_file = stored(payload->source_file);
        e.payload.stack_trace = stored(payload->stack_trace);
    } else {
        std::memset(&e.payload, 0, sizeof e.payload);
        e.payload.name = stored(name);
        e.payload.flags = XPTI_PF_NAME;
    }
    char key[512];
    std::snprintf(key, sizeof key, "%s|%s|%u|%u", e.payload.name ? e.payload.name : "",
                  e.payload.source_file ? e.payload.source_file : "", e.payload.line_no, e.payload.column_no);
    uint64_t inst = ++instances[key];
    e.base.unique_id = unique.fetch_add(1);  // a new event per instance
    e.base.instance_id = inst;
    e.base.event_type = event_type;
    e.base.activity_type = static_cast<uint16_t>(activity);
    e.base.payload = &e.payload;
    if (instance_no != nullptr) *instance_no = inst;
    return &e.base;
}

__attribute__((visibility("default"))) int32_t xptiAddMetadata(xpti_event_t *e, const char *key,
                                                               xpti_object_id_t value) {
    if (e == nullptr || key == nullptr) return XPTI_RESULT_INVALIDARG;
    std::lock_guard<std::mutex> l(mu);
    int32_t k = register_string_locked(key);
    reinterpret_cast<Event *>(e)->metadata[k] = value;
    return XPTI_RESULT_SUCCESS;
}

#ifndef STANDIN_NO_QUERY_PAYLOAD
__attribute__((visibility("default"))) const xpti_payload_t *xptiQueryPayload(xpti_event_t *e) {
    return e ? e->payload : nullptr;
}
#endif

__attribute__((visibility("default"))) void *xptiQueryMetadata(xpti_event_t *e) {
    return e ? &reinterpret_cast<Event *>(e)->metadata : nullptr;
}

__attribute__((visibility("default"))) xpti_string_id_t xptiRegisterString(const char *s, char **table) {
    if (s == nullptr) return -1;
    std::lock_guard<std::mutex> l(mu);
    int32_t id = register_string_locked(s);
    if (table != nullptr) *table = const_cast<char *>(strings[id - 1].c_str());
    return id;
}

__attribute__((visibility("default"))) const char *xptiLookupString(xpti_string_id_t id) {
    std::lock_guard<std::mutex> l(mu);
    if (id < 1 || static_cast<size_t>(id) > strings.size()) return nullptr;
    return strings[id - 1].c_str();
}

__attribute__((visibility("default"))) xpti_object_id_t xptiRegisterObject(const char *data, size_t size,
                                                                            uint8_t type) {
    std::lock_guard<std::mutex> l(mu);
    objects.push_back({std::string(data, size), type});  // size-delimited, no NUL semantics
    return static_cast<int32_t>(objects.size());
}

__attribute__((visibility("default"))) xpti_object_t xptiLookupObject(xpti_object_id_t id) {
    std::lock_guard<std::mutex> l(mu);
    if (id < 1 || static_cast<size_t>(id) > objects.size()) return {0, nullptr, 0};
    const Object &o = objects[id - 1];
    return {o.data.size(), o.data.data(), o.type};
}

__attribute__((visibility("default"))) int32_t xptiStashTuple(const char *key, uint64_t value) {
    if (stash_key != nullptr) return XPTI_RESULT_DUPLICATE;  // depth 1
    stash_key = key;
    stash_value = value;
    return XPTI_RESULT_SUCCESS;
}

__attribute__((visibility("default"))) void xptiUnstashTuple(void) { stash_key = nullptr; }

#ifndef STANDIN_NO_STASH
__attribute__((visibility("default"))) int32_t xptiGetStashedTuple(char **key, uint64_t *value) {
    if (stash_key == nullptr) return XPTI_RESULT_NOTFOUND;
    *key = const_cast<char *>(stash_key);
    *value = stash_value;
    return XPTI_RESULT_SUCCESS;
}
#endif

__attribute__((visibility("default"))) uint64_t xptiGetUniqueId(void) { return unique.fetch_add(1); }

}  // extern "C"

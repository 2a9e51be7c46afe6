/*
 * zc_node.c — the simulated node: ZESIM_CARDS cards of two tiles, and
 * ZE_AFFINITY_MASK applied as Intel's driver applies it (docs/mpi.md §5
 * "ZE_AFFINITY_MASK"): which root devices and sub-devices a process sees,
 * in which order, and that one EU stall stream per tile holds across
 * processes whatever device index the tile has in each of them.
 *
 * Each case runs this program again ("node-probe") with its own
 * environment, since the driver reads it once per process.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <level_zero/zet_api.h>

#include "zc.h"

/* The device list as "card.tile" (a device of one tile) or "card{t,t}"
 * (a card with sub-devices), space-separated, from the PCI bus (one per
 * card, the first card's bus subtracted by the caller) and the UUID's tile
 * byte (test/sim/README.md "Device hierarchy"). */
int zc_node_probe(void) {
    if (zeInit(0) != ZE_RESULT_SUCCESS) {
        printf("devices zeInit-failed\n");
        return 0;
    }
    uint32_t n = 1;
    ze_driver_handle_t drv;
    if (zeDriverGet(&n, &drv) != ZE_RESULT_SUCCESS || n != 1) return 2;
    ze_device_handle_t devs[64];
    n = 64;
    if (zeDeviceGet(drv, &n, devs) != ZE_RESULT_SUCCESS) return 2;
    char out[1024] = "";
    size_t len = 0;
    for (uint32_t i = 0; i < n; i++) {
        ze_pci_ext_properties_t pci;
        memset(&pci, 0, sizeof pci);
        pci.stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES;
        ze_device_properties_t p;
        if (zeDevicePciGetPropertiesExt(devs[i], &pci) != ZE_RESULT_SUCCESS || !zc_device_props(devs[i], &p, true))
            return 2;
        unsigned card = pci.address.bus;
        ze_device_handle_t subs[8];
        uint32_t ns = zc_subdevices(devs[i], subs, 8);
        if (ns == 0) {
            len += (size_t)snprintf(out + len, sizeof out - len, "%s%u.%u", i ? " " : "", card, p.uuid.id[8] - 1u);
            continue;
        }
        len += (size_t)snprintf(out + len, sizeof out - len, "%s%u{", i ? " " : "", card);
        for (uint32_t s = 0; s < ns; s++) {
            ze_device_properties_t sp;
            if (!zc_device_props(subs[s], &sp, true)) return 2;
            /* a sub-device's id is its tile of the card */
            if (sp.subdeviceId != sp.uuid.id[8] - 1u || !(sp.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE)) return 3;
            len += (size_t)snprintf(out + len, sizeof out - len, "%s%u", s ? "," : "", sp.subdeviceId);
        }
        len += (size_t)snprintf(out + len, sizeof out - len, "}");
    }
    printf("devices %s\n", out);
    return 0;
}

/* Runs this program in `mode` with the variables in set (NAME=value) set
 * and those in unset (names) unset, and returns its first stdout line that
 * starts with `prefix` (without it), or "". hold != NULL: the child keeps
 * running and its pid goes to *hold. */
static void run_child(const char *mode, const char *const *set, const char *const *unset, const char *prefix,
                      char *out, size_t cap, pid_t *hold) {
    out[0] = '\0';
    int pfd[2];
    if (pipe(pfd) != 0) return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], 1);
        close(pfd[0]);
        for (const char *const *u = unset; u && *u; u++) unsetenv(*u);
        for (const char *const *e = set; e && *e; e++) putenv((char *)*e);
        execl("/proc/self/exe", "zesim-conformance", mode, (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    FILE *f = fdopen(pfd[0], "r");
    char line[1024];
    size_t pl = strlen(prefix);
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, prefix, pl) != 0) continue;
        line[strcspn(line, "\n")] = '\0';
        snprintf(out, cap, "%s", line + pl);
        break;
    }
    if (f) fclose(f);
    if (hold) *hold = pid;
    else waitpid(pid, NULL, 0);
}

typedef struct node_case {
    const char *cards, *hierarchy, *mask; /* NULL: unset */
    const char *want;                     /* the probe's device list */
    const char *why;
} node_case_t;

#define ALL_FLAT "0.0 0.1 1.0 1.1 2.0 2.1 3.0 3.1 4.0 4.1 5.0 5.1"
#define ALL_COMPOSITE "0{0,1} 1{0,1} 2{0,1} 3{0,1} 4{0,1} 5{0,1}"

static const node_case_t node_cases[] = {
    {NULL, NULL, NULL, "0.0 0.1", "one card by default: two FLAT tiles"},
    {"6", NULL, NULL, ALL_FLAT, "6 cards FLAT: 12 root devices, card-major"},
    {"6", "COMPOSITE", NULL, ALL_COMPOSITE, "6 cards COMPOSITE: 6 roots of 2 sub-devices"},
    {"6", NULL, "", ALL_FLAT, "empty mask: everything"},
    {"6", NULL, "default", ALL_FLAT, "mask \"default\": everything"},
    {"6", NULL, "3", "1.1", "FLAT: X is the X-th tile of the node"},
    {"6", NULL, "11,0", "0.0 5.1", "FLAT: physical order, not mask order"},
    {"6", NULL, "4,4", "2.0", "FLAT: a repeated entry is one device"},
    {"6", NULL, "12", "", "FLAT: index out of range selects nothing"},
    {"6", NULL, "1.0", "", "FLAT: X.Y entries are ignored"},
    {"6", NULL, "2,1.0,x,5", "1.0 2.1", "FLAT: bad entries ignored, the others kept"},
    {"6", "COMPOSITE", "2", "2{0,1}", "COMPOSITE: X is card X with both tiles"},
    {"6", "COMPOSITE", "2.1", "2.1", "COMPOSITE: X.Y is one tile, a root without sub-devices"},
    {"6", "COMPOSITE", "2.0,2.1", "2{0,1}", "COMPOSITE: both tiles of a card listed: the card"},
    {"6", "COMPOSITE", "5,0.1", "0.1 5{0,1}", "COMPOSITE: lists mix forms, physical order"},
    {"6", "COMPOSITE", "1.2", "", "COMPOSITE: tile out of range selects nothing"},
    {"6", "COMPOSITE", "6", "", "COMPOSITE: card out of range selects nothing"},
    {"6", "COMPOSITE", "1.0.0", "", "COMPOSITE: X.Y.Z (engine level) is not simulated: ignored"},
    {"6", "COMBINED", "3", "3{0,1}", "COMBINED is treated as COMPOSITE"},
    {NULL, NULL, "1", "0.1", "one card FLAT: mask 1 is tile 1"},
};

/* Probe output with PCI buses turned into card numbers (bus - bus0). */
static void normalize(char *got, unsigned bus0, char *norm, size_t cap) {
    size_t len = 0;
    norm[0] = '\0';
    for (char *save = NULL, *tok = strtok_r(got, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *rest = NULL;
        unsigned bus = (unsigned)strtoul(tok, &rest, 10);
        len += (size_t)snprintf(norm + len, cap - len, "%s%u%s", len ? " " : "", bus - bus0, rest);
    }
}

static void probe(const char *cards, const char *hierarchy, const char *mask, char *got, size_t cap) {
    static char e_cards[64], e_hier[64], e_mask[128];
    snprintf(e_cards, sizeof e_cards, "ZESIM_CARDS=%s", cards ? cards : "1");
    snprintf(e_hier, sizeof e_hier, "ZE_FLAT_DEVICE_HIERARCHY=%s", hierarchy ? hierarchy : "FLAT");
    snprintf(e_mask, sizeof e_mask, "ZE_AFFINITY_MASK=%s", mask ? mask : "");
    const char *set[] = {"ZESIM_MODEL=pvc", e_cards, e_hier, mask ? e_mask : NULL, NULL};
    const char *unset[] = {"ZESIM_HIERARCHY", "ZE_AFFINITY_MASK", "ZESIM_GROUND_TRUTH", NULL};
    run_child("node-probe", set, unset, "devices ", got, cap, NULL);
}

static void test_selection(void) {
    char got[1024], norm[1024];
    probe("6", NULL, NULL, got, sizeof got);
    unsigned bus0 = (unsigned)strtoul(got, NULL, 10);
    for (size_t i = 0; i < sizeof node_cases / sizeof node_cases[0]; i++) {
        const node_case_t *c = &node_cases[i];
        probe(c->cards, c->hierarchy, c->mask, got, sizeof got);
        normalize(got, bus0, norm, sizeof norm);
        CHECK_STR(norm, c->want, c->why);
    }
}

/* One EU stall stream per physical tile across processes, whatever index
 * the tile has in each process (docs/eu-stall-sampling.md §5.1
 * "Preconditions and results"): a holder bound to node tile 3 (card 1,
 * tile 1) by its mask refuses opens of that tile from processes that see
 * it as FLAT device 0, as a COMPOSITE card with one tile or as a sub-device
 * of card 1, and leaves card 1's tile 0 free. */
static void test_tile_streams(void) {
    char machine[160], e_machine[200];
    const char *tmp = getenv("TMPDIR");
    snprintf(machine, sizeof machine, "%s/zc-node-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    snprintf(e_machine, sizeof e_machine, "ZESIM_MACHINE=%s", machine);
    const char *unset[] = {"ZESIM_HIERARCHY", "ZE_AFFINITY_MASK", "ZESIM_GROUND_TRUTH", NULL};
    const char *hold_env[] = {"ZESIM_MODEL=pvc", "ZESIM_CARDS=6", "ZET_ENABLE_METRICS=1", "ZE_AFFINITY_MASK=3",
                              "ZE_FLAT_DEVICE_HIERARCHY=FLAT", e_machine, NULL};
    char line[128];
    pid_t holder = -1;
    run_child("hold-stream", hold_env, unset, "held", line, sizeof line, &holder);
    struct {
        const char *hier, *mask, *want, *why;
    } opens[] = {
        {"FLAT", "3", "0x7ffffffe", "same tile as FLAT device 0: refused (UNKNOWN)"},
        {"COMPOSITE", "1.1", "0x7ffffffe", "same tile as a COMPOSITE card of one tile: refused"},
        {"COMPOSITE", "1", "0x7ffffffe", "card 1 (both tiles, one held): refused"},
        {"FLAT", "2", "0x00000000", "the other tile of card 1 is free"},
        {"FLAT", "9", "0x00000000", "a tile of another card is free"},
    };
    for (size_t i = 0; i < sizeof opens / sizeof opens[0]; i++) {
        char e_hier[64], e_mask[64], got[64];
        snprintf(e_hier, sizeof e_hier, "ZE_FLAT_DEVICE_HIERARCHY=%s", opens[i].hier);
        snprintf(e_mask, sizeof e_mask, "ZE_AFFINITY_MASK=%s", opens[i].mask);
        const char *env[] = {"ZESIM_MODEL=pvc", "ZESIM_CARDS=6", "ZET_ENABLE_METRICS=1", e_hier, e_mask, e_machine,
                             NULL};
        run_child("try-stream", env, unset, "open ", got, sizeof got, NULL);
        CHECK_STR(got, opens[i].want, opens[i].why);
    }
    if (holder > 0) {
        kill(holder, SIGKILL);
        waitpid(holder, NULL, 0);
        char got[64];
        const char *env[] = {"ZESIM_MODEL=pvc", "ZESIM_CARDS=6", "ZET_ENABLE_METRICS=1",
                             "ZE_FLAT_DEVICE_HIERARCHY=FLAT", "ZE_AFFINITY_MASK=3", e_machine, NULL};
        run_child("try-stream", env, unset, "open ", got, sizeof got, NULL);
        CHECK_STR(got, "0x00000000", "the holder killed: its tile is free");
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", machine);
    if (system(cmd) != 0) printf("note: could not remove %s\n", machine);
}

void zc_test_node(void) {
    test_selection();
    test_tile_streams();
}

/*
 * zestall-iga: disassembles Intel GPU kernels for the offline zestall CLI.
 *
 * The CLI is pure Go (CGO_ENABLED=0), so it cannot call IGA itself; it runs
 * this helper instead. The helper loads IGA (libiga64.so.1, Debian package
 * libigc1) with dlopen at run time, so neither the helper nor the CLI needs
 * IGA to build, and a machine without IGA still gets offsets (the CLI says
 * once that disassembly is unavailable).
 *
 * Protocol (stdin -> stdout, repeated until end of input):
 *
 *   request:  one line "<platform> <size>\n" followed by exactly <size> bytes
 *             of raw kernel ISA (the .text.<kernel> section, not the ELF).
 *             <platform> is an iga_gen_t value (e.g. 0x01000004 for XE_HPC),
 *             decimal or 0x-prefixed hex.
 *   response: one line "<offset>\t<size>\t<text>\n" per instruction, offset
 *             and size in bytes (decimal), text as IGA formats it with
 *             default options; then a line ".\n".
 *             On failure instead a line "error\t<message>\n" then ".\n";
 *             the helper then continues with the next request.
 *
 * A malformed request line or a short read ends the helper with exit status
 * 2; "cannot load IGA" ends it with exit status 3 before any response, so
 * the CLI can tell "IGA missing" from "kernel not decodable". Output is
 * flushed after every response.
 *
 * The KernelView prototypes are declared here with C types: Debian ships no
 * IGA headers, and the installed ones are C++ only; the library exports the
 * kv_* symbols unmangled (docs/eu-stall-sampling.md §11.2 "The headers are C++
 * only; calling from C"). kv_create
 * takes 7 arguments since IGA 1.1 (the last, an SWSB encode mode, 0 = derive
 * from platform); the 6-argument form of older IGAs ignores the extra
 * integer argument under the x86-64 SysV ABI.
 *
 * Options: --version prints IGA's version string; --self-test checks the
 * request parser without IGA (run by ctest).
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kv_t kv_t;
typedef int32_t iga_gen_t;
typedef int32_t iga_status_t;

typedef kv_t *(*kv_create_fn)(iga_gen_t plat, const void *bytes, size_t bytes_len, iga_status_t *status,
                              char *errbuf, size_t errbuf_cap, uint32_t swsb_enc_mode);
typedef void (*kv_delete_fn)(kv_t *kv);
typedef int32_t (*kv_get_inst_size_fn)(const kv_t *kv, int32_t pc);
typedef size_t (*kv_get_inst_syntax_fn)(const kv_t *kv, int32_t pc, char *sbuf, size_t sbuf_cap,
                                        uint32_t fmt_opts, const char *(*get_label_name)(int32_t, void *),
                                        void *env);
typedef const char *(*iga_version_string_fn)(void);
typedef const char *(*iga_status_to_string_fn)(iga_status_t st);

struct iga {
	void *lib;
	kv_create_fn kv_create;
	kv_delete_fn kv_delete;
	kv_get_inst_size_fn kv_get_inst_size;
	kv_get_inst_syntax_fn kv_get_inst_syntax;
	iga_version_string_fn iga_version_string;     /* optional */
	iga_status_to_string_fn iga_status_to_string; /* optional */
};

/* Largest kernel accepted: real kernels are kilobytes to a few megabytes;
 * the bound keeps a corrupted request from allocating without limit. */
#define MAX_KERNEL_BYTES (64u << 20)
/* IGA's own limit on a kernel view is an int32 PC. */

static const char *iga_library(void)
{
	const char *env = getenv("ZESTALL_IGA_LIBRARY");
	return env && *env ? env : "libiga64.so.1";
}

/* load_iga fills g or writes a one-line reason to stderr and returns -1. */
static int load_iga(struct iga *g)
{
	const char *name = iga_library();
	memset(g, 0, sizeof *g);
	g->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!g->lib) {
		fprintf(stderr, "zestall-iga: cannot load %s (Debian package libigc1): %s\n", name, dlerror());
		return -1;
	}
	/* POSIX: converting void* from dlsym to a function pointer goes through
	 * memcpy to stay clean under -Wpedantic-style warnings. */
	struct {
		const char *sym;
		void *dst;
		size_t size;
		int required;
	} syms[] = {
		{"kv_create", &g->kv_create, sizeof g->kv_create, 1},
		{"kv_delete", &g->kv_delete, sizeof g->kv_delete, 1},
		{"kv_get_inst_size", &g->kv_get_inst_size, sizeof g->kv_get_inst_size, 1},
		{"kv_get_inst_syntax", &g->kv_get_inst_syntax, sizeof g->kv_get_inst_syntax, 1},
		{"iga_version_string", &g->iga_version_string, sizeof g->iga_version_string, 0},
		{"iga_status_to_string", &g->iga_status_to_string, sizeof g->iga_status_to_string, 0},
	};
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *p = dlsym(g->lib, syms[i].sym);
		if (!p && syms[i].required) {
			fprintf(stderr, "zestall-iga: %s lacks %s: not IGA's KernelView API\n", name, syms[i].sym);
			dlclose(g->lib);
			g->lib = NULL;
			return -1;
		}
		memcpy(syms[i].dst, &p, syms[i].size);
	}
	return 0;
}

/* parse_request parses "<platform> <size>" (without the newline). */
static int parse_request(const char *line, int32_t *plat, size_t *size)
{
	char *end;
	errno = 0;
	long long p = strtoll(line, &end, 0);
	if (errno || end == line || *end != ' ' || p < INT32_MIN || p > INT32_MAX)
		return -1;
	const char *s = end + 1;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (errno || *end != '\0' || n > MAX_KERNEL_BYTES)
		return -1;
	*plat = (int32_t)p;
	*size = (size_t)n;
	return 0;
}

/* one_line replaces control characters so a response line stays one line. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r' || *s == '\t')
			*s = ' ';
}

static void disassemble(const struct iga *g, int32_t plat, const unsigned char *isa, size_t n)
{
	char err[1024] = "";
	iga_status_t st = 0;
	kv_t *kv = n ? g->kv_create(plat, isa, n, &st, err, sizeof err, 0) : NULL;
	if (!kv) {
		const char *why = st && g->iga_status_to_string ? g->iga_status_to_string(st) : "";
		err[sizeof err - 1] = '\0';
		one_line(err);
		printf("error\tIGA cannot decode %zu bytes for platform %#" PRIx32 ": status %d%s%s%s%s\n.\n", n,
		       (uint32_t)plat, (int)st, *why ? " " : "", why, *err ? ": " : "", err);
		return;
	}
	char text[4096];
	int32_t pc = 0;
	while ((size_t)pc < n) {
		int32_t sz = g->kv_get_inst_size(kv, pc);
		if (sz <= 0)
			break;
		size_t w = g->kv_get_inst_syntax(kv, pc, text, sizeof text, 0, NULL, NULL);
		if (w == 0)
			snprintf(text, sizeof text, "(IGA could not format this instruction)");
		text[sizeof text - 1] = '\0';
		one_line(text);
		printf("%" PRId32 "\t%" PRId32 "\t%s\n", pc, sz, text);
		if (sz > INT32_MAX - pc)
			break;
		pc += sz;
	}
	printf(".\n");
	g->kv_delete(kv);
}

static int self_test(void)
{
	static const struct {
		const char *line;
		int ok;
		int32_t plat;
		size_t size;
	} cases[] = {
		{"0x01000004 576", 1, 0x01000004, 576},
		{"16777220 0", 1, 0x01000004, 0},
		{"0x01000004", 0, 0, 0},
		{"0x01000004 -1", 0, 0, 0},
		{"0x01000004 67108865", 0, 0, 0},
		{"x 1", 0, 0, 0},
		{"1 2 3", 0, 0, 0},
		{"", 0, 0, 0},
		{"99999999999 1", 0, 0, 0},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int32_t p = 0;
		size_t s = 0;
		int ok = parse_request(cases[i].line, &p, &s) == 0;
		if (ok != cases[i].ok || (ok && (p != cases[i].plat || s != cases[i].size))) {
			fprintf(stderr, "parse_request(%s): ok %d plat %" PRId32 " size %zu\n", cases[i].line, ok, p, s);
			bad = 1;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--self-test") == 0)
		return self_test();
	struct iga g;
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		if (load_iga(&g) != 0)
			return 3;
		printf("%s\n", g.iga_version_string ? g.iga_version_string() : "unknown IGA version");
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: zestall-iga [--version | --self-test] < requests\n"
		                "(the zestall CLI runs this helper; see the comment at the top of zestall_iga.c)\n");
		return 2;
	}
	if (load_iga(&g) != 0)
		return 3;
	char line[128];
	unsigned char *buf = NULL;
	int rc = 0;
	while (fgets(line, sizeof line, stdin)) {
		size_t len = strlen(line);
		if (len == 0 || line[len - 1] != '\n') {
			fprintf(stderr, "zestall-iga: request line too long or unterminated\n");
			rc = 2;
			break;
		}
		line[len - 1] = '\0';
		int32_t plat;
		size_t n;
		if (parse_request(line, &plat, &n) != 0) {
			fprintf(stderr, "zestall-iga: bad request line %.60s (want \"<platform> <size>\")\n", line);
			rc = 2;
			break;
		}
		unsigned char *nb = realloc(buf, n ? n : 1);
		if (!nb) {
			fprintf(stderr, "zestall-iga: out of memory for %zu bytes\n", n);
			rc = 2;
			break;
		}
		buf = nb;
		if (fread(buf, 1, n, stdin) != n) {
			fprintf(stderr, "zestall-iga: input ended inside a %zu-byte kernel\n", n);
			rc = 2;
			break;
		}
		disassemble(&g, plat, buf, n);
		if (fflush(stdout) != 0) {
			rc = 2;
			break;
		}
	}
	free(buf);
	/* IGA is not dlclose()d: process exit releases it, and unloading C++
	 * libraries with static destructors is a known source of exit crashes. */
	return rc;
}

/*
 * zestall-mpi-openmpi, zestall-mpi-mpich: an MPI job whose ranks launch
 * kernels, the same source built with Open MPI's and with MPICH's mpicc.
 * Each rank: MPI_Init, then Level Zero on the first device the driver
 * shows it (ZE_AFFINITY_MASK selects a tile per rank, as on Aurora),
 * 4 + rank launches of every kernel of the stream module on an immediate
 * command list (so ranks differ and their files can be told apart),
 * MPI_Barrier, an MPI_Allreduce of the launch counts that rank 0 prints,
 * MPI_Finalize. Exit status 0 only if everything succeeded.
 *
 * ZESTALL_MPI_TRUTH_DIR=DIR gives every rank its own ground-truth file,
 * DIR/truth.RANK.jsonl (the simulated driver reads ZESIM_GROUND_TRUTH
 * when the application's first zeInit loads it, after this setenv).
 */
#include <mpi.h>

#include "app_common.h"

#define N 4096

int main(int argc, char **argv) {
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) app_die("MPI_Init");
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *truth = getenv("ZESTALL_MPI_TRUTH_DIR");
    if (truth != NULL && *truth != '\0') {
        char path[4096];
        snprintf(path, sizeof path, "%s/truth.%d.jsonl", truth, rank);
        setenv("ZESIM_GROUND_TRUTH", path, 1);
    }
    long iters = 4 + rank;

    app_env_t env;
    app_init(&env);
    ze_module_handle_t mod = app_module(&env, "stream");
    char **names;
    uint32_t nk = app_kernel_names(mod, &names);
    if (nk == 0) app_die("module has no kernels");
    const size_t bytes = N * sizeof(float);
    void *a = app_alloc_device(&env, bytes), *b = app_alloc_device(&env, bytes), *c = app_alloc_device(&env, bytes);
    void *bufs[3] = {a, b, c};
    ze_kernel_handle_t *k = app_kernels(mod, names, nk, bufs);
    ze_command_list_handle_t l = app_imm_list(&env, env.compute_ordinal, APP_COMMAND_QUEUE_FLAG_IN_ORDER);
    ze_event_pool_handle_t pool = app_pool(&env, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_handle_t done = app_event(pool, 0, true);
    ze_group_count_t groups = {N / 64, 1, 1};
    long launches = 0;
    for (long it = 0; it < iters; it++)
        for (uint32_t i = 0; i < nk; i++, launches++)
            CK(zeCommandListAppendLaunchKernel(l, k[i], &groups, NULL, 0, NULL));
    CK(zeCommandListAppendBarrier(l, done, 0, NULL));
    CK(zeEventHostSynchronize(done, UINT64_MAX));

    if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) app_die("MPI_Barrier");
    long total = 0;
    if (MPI_Allreduce(&launches, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) app_die("MPI_Allreduce");
    if (rank == 0) printf("ranks %d launches %ld\n", size, total);

    CK(zeEventDestroy(done));
    CK(zeEventPoolDestroy(pool));
    CK(zeCommandListDestroy(l));
    for (uint32_t i = 0; i < nk; i++) CK(zeKernelDestroy(k[i]));
    app_free_names(names, nk);
    free(k);
    CK(zeModuleDestroy(mod));
    CK(zeMemFree(env.context, a));
    CK(zeMemFree(env.context, b));
    CK(zeMemFree(env.context, c));
    app_fini(&env);
    MPI_Finalize();
    return 0;
}

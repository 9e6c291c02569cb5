// A small CUDA emulation for the host: enough of the CUDA C++ surface that
// the kernels in kernels/*.cu compile unchanged as C++ and run on the CPU,
// so their output can be compared bit for bit with the Rust CPU path.
//
// Two ways to run the threads of a thread block:
//  * default: each CUDA thread is a fiber with its own stack, switched at
//    __syncthreads() by a hand-written context switch (a few ns), so a
//    512-thread block with a dozen barriers costs microseconds. Barrier
//    divergence (a thread finishing while others wait at a barrier) is
//    detected and aborts with a message, like compute-sanitizer's synccheck.
//  * BW_EMU_THREADS: each CUDA thread is an OS thread and __syncthreads() is
//    a pthread barrier, so ThreadSanitizer sees real concurrency and reports
//    shared-memory races (a missing barrier) as data races.
//
// __shared__ becomes a function-local static: one copy shared by all threads
// of the (single) block running at a time, which is exactly its meaning.
// With fibers a whole launch runs on one OS thread, so an includer that
// defines BW_EMU_PER_THREAD_STATICS (launch.cpp) makes those statics
// thread_local: launches on different OS threads then run at once. The
// driver stand-in hands out the address of `bw_world` and so keeps plain
// statics; the threads build shares them between a block's OS threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <math.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#if defined(BW_EMU_THREADS)
#include <pthread.h>
#include <thread>
#else
#include <sys/mman.h>
#include <unistd.h>
#endif

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#if defined(BW_EMU_PER_THREAD_STATICS) && !defined(BW_EMU_THREADS)
#define __shared__ static thread_local
#define __constant__ static thread_local
#else
#define __shared__ static
#define __constant__ static
#endif
#define __launch_bounds__(...)

struct uint3 {
    unsigned int x, y, z;
};
struct dim3 {
    unsigned int x, y, z;
    dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;

inline float __uint_as_float(unsigned int b) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}
inline unsigned int __float_as_uint(float f) {
    unsigned int b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}
inline long long __double_as_longlong(double d) {
    long long b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}
using std::max;
using std::min;

inline unsigned int atomicAdd(unsigned int* address, unsigned int value) {
    return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
}
inline int atomicMax(int* address, int value) {
    int old = __atomic_load_n(address, __ATOMIC_RELAXED);
    while (old < value &&
           !__atomic_compare_exchange_n(address, &old, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}

namespace emu {

// Nesting depth of the recursive device functions (BW_RECURSION_PROBE), so
// the driver stand-in can check a launch's real stack need against the
// per-thread stack limit. Fibers only switch at barriers, never inside a
// probed function, so a per-OS-thread counter sees one CUDA thread at a time.
inline thread_local int tl_depth = 0;
inline std::atomic<int> g_max_depth{0};
struct DepthProbe {
    DepthProbe() {
        int d = ++tl_depth;
        int seen = g_max_depth.load(std::memory_order_relaxed);
        while (d > seen && !g_max_depth.compare_exchange_weak(seen, d, std::memory_order_relaxed)) {
        }
    }
    ~DepthProbe() { --tl_depth; }
    DepthProbe(const DepthProbe&) = delete;
    DepthProbe& operator=(const DepthProbe&) = delete;
};

[[noreturn]] inline void fail(const char* what) {
    std::fprintf(stderr, "cuda emulation: %s\n", what);
    std::abort();
}

#if defined(BW_EMU_THREADS)

inline thread_local pthread_barrier_t* tl_barrier = nullptr;

inline void syncthreads() { pthread_barrier_wait(tl_barrier); }

template <typename Kernel>
void launch(dim3 grid, dim3 block, Kernel kernel) {
    const unsigned int n = block.x * block.y * block.z;
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, nullptr, n);
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (unsigned int t = 0; t < n; ++t) {
        threads.emplace_back([&, t] {
            tl_barrier = &barrier;
            blockDim = block;
            gridDim = grid;
            threadIdx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
            for (unsigned int bz = 0; bz < grid.z; ++bz)
                for (unsigned int by = 0; by < grid.y; ++by)
                    for (unsigned int bx = 0; bx < grid.x; ++bx) {
                        blockIdx = uint3{bx, by, bz};
                        kernel();
                        // The next block reuses the static __shared__ arrays.
                        pthread_barrier_wait(&barrier);
                    }
        });
    }
    for (auto& th : threads) th.join();
    pthread_barrier_destroy(&barrier);
}

#else  // fibers

extern "C" void bw_emu_switch(void** save_sp, void* load_sp);

struct Fiber {
    void* sp = nullptr;
    unsigned long barriers = 0;
    bool done = false;
};

// One stack per fiber in a single mapping, each with an inaccessible page
// below it (stacks grow down): a thread that overflows its stack faults at
// once instead of quietly overwriting its neighbour's.
class FiberStacks {
public:
    FiberStacks(unsigned int n, size_t bytes)
        : page_(size_t(sysconf(_SC_PAGESIZE))), stride_((bytes + page_ - 1) / page_ * page_ + page_),
          size_(stride_ * n) {
        void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) fail("cannot map the fiber stacks");
        base_ = static_cast<unsigned char*>(p);
        for (unsigned int t = 0; t < n; ++t)
            if (mprotect(base_ + size_t(t) * stride_, page_, PROT_NONE) != 0) fail("cannot protect a guard page");
    }
    ~FiberStacks() { munmap(base_, size_); }
    FiberStacks(const FiberStacks&) = delete;
    FiberStacks& operator=(const FiberStacks&) = delete;
    unsigned char* base(unsigned int t) const { return base_ + size_t(t) * stride_ + page_; }
    size_t bytes() const { return stride_ - page_; }

private:
    size_t page_, stride_, size_;
    unsigned char* base_ = nullptr;
};

struct Scheduler {
    void* sp = nullptr;
    std::vector<Fiber> fibers;
    unsigned int current = 0;
    void (*body)(void*) = nullptr;
    void* body_arg = nullptr;
};

inline thread_local Scheduler* tl_sched = nullptr;
constexpr size_t kStackBytes = 64 * 1024;

inline void syncthreads() {
    Scheduler* s = tl_sched;
    Fiber& f = s->fibers[s->current];
    f.barriers += 1;
    bw_emu_switch(&f.sp, s->sp);
}

[[noreturn]] inline void fiber_entry() {
    Scheduler* s = tl_sched;
    s->body(s->body_arg);
    Fiber& f = s->fibers[s->current];
    f.done = true;
    bw_emu_switch(&f.sp, s->sp);
    fail("finished fiber resumed");
}

inline void* initial_stack(unsigned char* base, size_t bytes) {
    uintptr_t top = (reinterpret_cast<uintptr_t>(base) + bytes) & ~uintptr_t(15);
    void** sp = reinterpret_cast<void**>(top);
    *--sp = nullptr;                                        // fake return address of fiber_entry
    *--sp = reinterpret_cast<void*>(&fiber_entry);          // popped by `ret`
    for (int i = 0; i < 6; ++i) *--sp = nullptr;            // rbp rbx r12 r13 r14 r15
    return sp;
}

template <typename Kernel>
void launch(dim3 grid, dim3 block, Kernel kernel) {
    const unsigned int n = block.x * block.y * block.z;
    Scheduler s;
    s.fibers.resize(n);
    const FiberStacks stacks(n, kStackBytes);
    s.body = [](void* k) { (*static_cast<Kernel*>(k))(); };
    s.body_arg = &kernel;
    Scheduler* outer = tl_sched;
    tl_sched = &s;
    blockDim = block;
    gridDim = grid;
    for (unsigned int bz = 0; bz < grid.z; ++bz)
        for (unsigned int by = 0; by < grid.y; ++by)
            for (unsigned int bx = 0; bx < grid.x; ++bx) {
                blockIdx = uint3{bx, by, bz};
                for (unsigned int t = 0; t < n; ++t) {
                    s.fibers[t] = Fiber{};
                    s.fibers[t].sp = initial_stack(stacks.base(t), stacks.bytes());
                }
                unsigned int alive = n;
                while (alive > 0) {
                    // One round: every live thread runs to its next barrier or its end.
                    for (unsigned int t = 0; t < n; ++t) {
                        if (s.fibers[t].done) continue;
                        s.current = t;
                        threadIdx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
                        bw_emu_switch(&s.sp, s.fibers[t].sp);
                    }
                    unsigned long barrier = 0;
                    bool any_waiting = false, any_done = false;
                    alive = 0;
                    for (const Fiber& f : s.fibers) {
                        if (f.done) {
                            any_done = true;
                            continue;
                        }
                        alive += 1;
                        if (any_waiting && f.barriers != barrier) fail("threads wait at different __syncthreads()");
                        barrier = f.barriers;
                        any_waiting = true;
                    }
                    if (any_waiting && any_done) fail("a thread exited while others wait at __syncthreads()");
                }
            }
    tl_sched = outer;
}

#endif

}  // namespace emu

#define __syncthreads() emu::syncthreads()
#define BW_RECURSION_PROBE() emu::DepthProbe bw_recursion_probe_

// kernel<<<grid, block>>>(args...) becomes BW_LAUNCH(kernel, grid, block, args...).
#define BW_LAUNCH(kernel, grid, block, ...) emu::launch((grid), (block), [&] { kernel(__VA_ARGS__); })

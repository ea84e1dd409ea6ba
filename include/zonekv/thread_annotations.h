// Lock contracts the compiler checks: clang's thread-safety annotations
// (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html).
//
// Under clang the macros expand to the attributes, and the build with
// -DZONEKV_THREAD_SAFETY=ON (scripts/test.sh with ZONEKV_CLANG_TSA=1, run
// by CI) turns every violation into a compile error; under gcc, the
// project's compiler, they expand to nothing. docs/fs-locking.md explains
// how the layers use them.
//
//   class Foo {
//     void Bar() ZONEKV_EXCLUDES(mu_);       // takes mu_ itself
//     void BazLocked() ZONEKV_REQUIRES(mu_); // the caller holds mu_
//     Mutex mu_;
//     int n_ ZONEKV_GUARDED_BY(mu_) = 0;     // read or written only under mu_
//   };
//
// A lock type is a ZONEKV_CAPABILITY; MutexLock (zonekv/mutex.h) is the
// ZONEKV_SCOPED_CAPABILITY that holds one for a scope. A field that is not
// annotated says in a comment why (e.g. written only before other threads
// start, or atomic).
#pragma once

#if defined(__clang__)
#define ZONEKV_TSA(x) __attribute__((x))
#else
#define ZONEKV_TSA(x)
#endif

// On a class: its objects are locks ("mutex" names the kind in messages).
#define ZONEKV_CAPABILITY(x) ZONEKV_TSA(capability(x))
// On a class: an object that holds a lock from construction to destruction.
#define ZONEKV_SCOPED_CAPABILITY ZONEKV_TSA(scoped_lockable)
// On a field: read and written only while holding the lock.
#define ZONEKV_GUARDED_BY(x) ZONEKV_TSA(guarded_by(x))
// On a pointer field: the object it points to is guarded by the lock (the
// pointer itself is not).
#define ZONEKV_PT_GUARDED_BY(x) ZONEKV_TSA(pt_guarded_by(x))
// On a lock field: the lock order (checked with -Wthread-safety-beta).
#define ZONEKV_ACQUIRED_BEFORE(...) ZONEKV_TSA(acquired_before(__VA_ARGS__))
#define ZONEKV_ACQUIRED_AFTER(...) ZONEKV_TSA(acquired_after(__VA_ARGS__))
// On a function: the caller holds the lock (and still holds it on return).
#define ZONEKV_REQUIRES(...) ZONEKV_TSA(requires_capability(__VA_ARGS__))
// On a function: the caller must not hold the lock (the function takes it).
#define ZONEKV_EXCLUDES(...) ZONEKV_TSA(locks_excluded(__VA_ARGS__))
// On a lock type's functions: they take or give back the lock (no
// argument: the object itself).
#define ZONEKV_ACQUIRE(...) ZONEKV_TSA(acquire_capability(__VA_ARGS__))
#define ZONEKV_RELEASE(...) ZONEKV_TSA(release_capability(__VA_ARGS__))
// On a lock type's try_lock: takes the lock when it returns `b`.
#define ZONEKV_TRY_ACQUIRE(b, ...) ZONEKV_TSA(try_acquire_capability(b, ##__VA_ARGS__))
// On a function the analysis cannot follow (a lock type's own
// implementation): not checked. Every use says why in a comment.
#define ZONEKV_NO_THREAD_SAFETY_ANALYSIS ZONEKV_TSA(no_thread_safety_analysis)

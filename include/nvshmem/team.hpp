// SPDX-License-Identifier: BSD-3-Clause
// nvshmem::Team (a team handle, owning nothing), nvshmem::UniqueTeam (a team made by a split or from a
// team unique id, destroyed at its end) and nvshmem::TeamUniqueId. docs/cpp.md and docs/teams.md give the rules. Host
// code only; kernels take the raw handle (Team::handle()).
#pragma once

#include <nvshmem_host.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "nvshmem/error.hpp"
#include "nvshmem/runtime.hpp"

namespace nvshmem {

class UniqueTeam;

/// A team handle (nvshmem_team_t): a cheap, trivially copyable value that owns nothing. It names a
/// slot of this PE's team table, so it is only meaningful on this PE. The default value is
/// NVSHMEM_TEAM_INVALID (which non-members of a split also get). A split team's handle is meaningful
/// until that team is destroyed (its UniqueTeam's end). Queries are local, need an initialised runtime
/// and may be called from any thread; they keep NVSHMEM's -1 answers (not errors).
class Team {
 public:
  /// NVSHMEM_TEAM_INVALID.
  constexpr Team() noexcept = default;
  /// Wrap a handle from the C API (not owned: destroy it through the C API if it was split there).
  constexpr explicit Team(nvshmem_team_t handle) noexcept : handle_(handle) {}
  /// The predefined teams: every PE (NVSHMEM_TEAM_WORLD), the PEs that share memory with this one
  /// (NVSHMEM_TEAM_SHARED), this node's PEs (NVSHMEMX_TEAM_NODE).
  static constexpr Team world() noexcept { return Team(NVSHMEM_TEAM_WORLD); }
  static constexpr Team shared() noexcept { return Team(NVSHMEM_TEAM_SHARED); }
  static constexpr Team node() noexcept { return Team(NVSHMEMX_TEAM_NODE); }

  /// The C handle (for the C API and for kernels).
  constexpr nvshmem_team_t handle() const noexcept { return handle_; }
  /// False for NVSHMEM_TEAM_INVALID.
  constexpr bool valid() const noexcept { return handle_ != NVSHMEM_TEAM_INVALID; }
  /// This PE's index in the team, 0 .. n_pes()-1 (nvshmem_team_my_pe); -1 when invalid.
  int my_pe() const { return ::nvshmem_team_my_pe(handle_); }
  /// Number of PEs in the team (nvshmem_team_n_pes); -1 when invalid.
  int n_pes() const { return ::nvshmem_team_n_pes(handle_); }
  /// The index in `other` of the PE with index `pe` in this team (nvshmem_team_translate_pe); -1
  /// when a team is invalid, `pe` is out of range or that PE is not a member of `other`.
  int translate(int pe, Team other) const { return ::nvshmem_team_translate_pe(handle_, pe, other.handle_); }

  /// Collective over this (parent) team, one thread per member, same arguments everywhere: a new team
  /// of the parent's PEs start, start + stride, ... (`size` PEs, indices in this team; stride >= 1)
  /// (nvshmem_team_split_strided). `config` / `config_mask`: NVSHMEM_TEAM_CONFIG_MASK_* fields (0:
  /// defaults). Members get an owned valid team, the other parent PEs an owned invalid one. Needs a
  /// runtime started by Runtime::init (the result keeps it alive). Throws Error: INVALID_VALUE when
  /// no such runtime is live; the library's status when the split fails (bad arguments, no slot free
  /// on every parent PE: NVSHMEM_MAX_TEAMS), which happens on every parent PE alike.
  [[nodiscard]] UniqueTeam split_strided(int start, int stride, int size, const nvshmem_team_config_t *config = nullptr,
                                         long config_mask = 0) const;
  /// Collective over this team as for split_strided: the team seen as rows of `xrange` PEs; returns
  /// {this PE's row, this PE's column} (nvshmem_team_split_2d). Throws as split_strided.
  [[nodiscard]] std::pair<UniqueTeam, UniqueTeam> split_2d(int xrange,
                                                           const nvshmem_team_config_t *xaxis_config = nullptr,
                                                           long xaxis_mask = 0,
                                                           const nvshmem_team_config_t *yaxis_config = nullptr,
                                                           long yaxis_mask = 0) const;

  /// The configuration the team was created with (nvshmem_team_get_config): the fields its creation's
  /// mask gave (num_contexts, uniqueid), defaults for the others. Any thread, not concurrently with
  /// the team's creation or destruction. Throws Error(NVSHMEMX_ERROR_INVALID_VALUE) for
  /// NVSHMEM_TEAM_INVALID (a non-member's split result); a handle that names no live team keeps the
  /// C API's behaviour (message, abort). NVSHMEM: "Team Management".
  nvshmem_team_config_t config() const {
    if (!valid())
      throw Error(NVSHMEMX_ERROR_INVALID_VALUE, "Team::config", "NVSHMEM_TEAM_INVALID has no configuration");
    nvshmem_team_config_t config = NVSHMEM_TEAM_CONFIG_INITIALIZER;
    ::nvshmem_team_get_config(handle_, &config);
    return config;
  }

  /// Same handle value (on this PE).
  friend constexpr bool operator==(Team a, Team b) noexcept { return a.handle_ == b.handle_; }
  friend constexpr bool operator!=(Team a, Team b) noexcept { return a.handle_ != b.handle_; }

 private:
  nvshmem_team_t handle_ = NVSHMEM_TEAM_INVALID;
};

/// The id that makes a team of arbitrary PEs (nvshmemx_team_uniqueid_t, a 64-bit value): one PE
/// generates it, the application hands it to the future members by its own means (a broadcast, a
/// file, ...), and each member passes it to UniqueTeam::init. A value type, trivially copyable; the
/// default value 0 is no id. NVSHMEM: "Team Management" (nvshmemx_team_get_uniqueid).
class TeamUniqueId {
 public:
  constexpr TeamUniqueId() noexcept = default;
  /// Wrap a raw id (from nvshmemx_team_get_uniqueid or raw() on the generating PE).
  constexpr explicit TeamUniqueId(nvshmemx_team_uniqueid_t raw) noexcept : raw_(raw) {}
  /// A fresh id owned by this PE (nvshmemx_team_get_uniqueid); local, any one thread. At most 16 ids
  /// of one PE may be in use (not yet consumed by UniqueTeam::init on every member) at once. Needs a
  /// runtime started by Runtime::init. Throws Error: INVALID_VALUE when no such runtime is live, the
  /// library's status when it refuses.
  [[nodiscard]] static TeamUniqueId generate();
  /// The raw value, to send to the other members.
  constexpr nvshmemx_team_uniqueid_t raw() const noexcept { return raw_; }
  friend constexpr bool operator==(TeamUniqueId a, TeamUniqueId b) noexcept { return a.raw_ == b.raw_; }
  friend constexpr bool operator!=(TeamUniqueId a, TeamUniqueId b) noexcept { return a.raw_ != b.raw_; }

 private:
  nvshmemx_team_uniqueid_t raw_ = 0;
};

/// A team made by Team::split_strided / split_2d or UniqueTeam::init, destroyed (nvshmem_team_destroy) when it ends.
///
/// Ownership: move-only; holds the team and a hold on the runtime (the runtime is finalized only
/// after every UniqueTeam is gone). A moved-from or default-constructed UniqueTeam holds
/// NVSHMEM_TEAM_INVALID and nothing else.
///
/// Collective calls: the destructor, reset() and move assignment onto a valid team destroy it, which
/// is collective over the team's members: every member ends its UniqueTeam at the same point of its
/// program, after its last collective on the team (no kernel may still use the handle). On a
/// non-member (invalid team) they do nothing collective. One thread uses an object at a time.
///
/// Errors: only the factories throw (Team::split_strided, split_2d, UniqueTeam::init); ending a team
/// never throws, and a failing nvshmem_team_destroy keeps the C API's behaviour (message, abort).
class UniqueTeam {
 public:
  /// An empty UniqueTeam: NVSHMEM_TEAM_INVALID, no runtime hold.
  UniqueTeam() noexcept = default;
  /// Takes `other`'s team and runtime hold; `other` becomes empty. Local, no communication.
  UniqueTeam(UniqueTeam &&other) noexcept
      : state_(std::move(other.state_)), team_(std::exchange(other.team_, Team())) {}
  /// Ends this team first (reset(): collective over its members when valid), then takes `other`'s.
  UniqueTeam &operator=(UniqueTeam &&other) noexcept {
    if (this != &other) {
      reset();
      state_ = std::move(other.state_);
      team_ = std::exchange(other.team_, Team());
    }
    return *this;
  }
  UniqueTeam(const UniqueTeam &) = delete;
  UniqueTeam &operator=(const UniqueTeam &) = delete;
  /// As reset(): collective over the members when the team is valid.
  ~UniqueTeam() { reset(); }

  /// Collective over the `npes` PEs that pass the same `id`, one thread each: a new team of exactly
  /// those PEs, in which this PE has index `index` (0 <= index < npes, each index once); no parent
  /// team (nvshmemx_team_init). `config` / `config_mask` as for Team::split_strided; the id is put in
  /// a copy of `config` (NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID is added to the mask). Every caller gets a
  /// valid team; it keeps the runtime alive and is destroyed as any UniqueTeam (collective over the
  /// members). Members that arrive late are waited for up to NVSHMEM_BOOTSTRAP_TIMEOUT. Needs a
  /// runtime started by Runtime::init. Throws Error: INVALID_VALUE when no such runtime is live; the
  /// library's status (named "nvshmemx_team_init") when the creation fails (an id that no PE
  /// generated, bad npes or index, a member missing, no free team slot). NVSHMEM: "Team Management".
  [[nodiscard]] static UniqueTeam init(TeamUniqueId id, int npes, int index,
                                       const nvshmem_team_config_t *config = nullptr, long config_mask = 0);

  /// Destroy the team now (collective over its members, see the class comment), then release the
  /// runtime (which may finalize it: collective). Leaves an empty UniqueTeam.
  void reset() noexcept {
    if (team_.valid()) ::nvshmem_team_destroy(team_.handle());
    team_ = Team();
    state_.reset();
  }
  /// The team (valid while this object holds it; NVSHMEM_TEAM_INVALID on a non-member or when empty).
  /// Local; never throw.
  Team get() const noexcept { return team_; }
  operator Team() const noexcept { return team_; }
  const Team *operator->() const noexcept { return &team_; }

 private:
  friend class Team;
  UniqueTeam(std::shared_ptr<detail::RuntimeState> state, Team team) noexcept : state_(std::move(state)), team_(team) {}
  std::shared_ptr<detail::RuntimeState> state_;
  Team team_;
};

namespace detail {
/// The live runtime started by Runtime::init, or Error(NVSHMEMX_ERROR_INVALID_VALUE) naming `call`.
inline std::shared_ptr<RuntimeState> live_state(const char *call) {
  Registry &reg = registry();
  std::lock_guard<std::recursive_mutex> lock(reg.mutex);
  std::shared_ptr<RuntimeState> state = reg.live.lock();
  if (!state) throw Error(NVSHMEMX_ERROR_INVALID_VALUE, call, "no runtime started by nvshmem::Runtime::init is live");
  return state;
}
}  // namespace detail

inline UniqueTeam Team::split_strided(int start, int stride, int size, const nvshmem_team_config_t *config,
                                      long config_mask) const {
  std::shared_ptr<detail::RuntimeState> state = detail::live_state("Team::split_strided");
  nvshmem_team_t team = NVSHMEM_TEAM_INVALID;
  detail::check(::nvshmem_team_split_strided(handle_, start, stride, size, config, config_mask, &team),
                "nvshmem_team_split_strided",
                "split of team " + std::to_string(handle_) + " (start " + std::to_string(start) + ", stride " +
                    std::to_string(stride) + ", size " + std::to_string(size) + ") failed");
  return UniqueTeam(std::move(state), Team(team));
}

inline std::pair<UniqueTeam, UniqueTeam> Team::split_2d(int xrange, const nvshmem_team_config_t *xaxis_config,
                                                        long xaxis_mask, const nvshmem_team_config_t *yaxis_config,
                                                        long yaxis_mask) const {
  std::shared_ptr<detail::RuntimeState> state = detail::live_state("Team::split_2d");
  nvshmem_team_t x = NVSHMEM_TEAM_INVALID, y = NVSHMEM_TEAM_INVALID;
  detail::check(::nvshmem_team_split_2d(handle_, xrange, xaxis_config, xaxis_mask, &x, yaxis_config, yaxis_mask, &y),
                "nvshmem_team_split_2d",
                "2d split of team " + std::to_string(handle_) + " (xrange " + std::to_string(xrange) + ") failed");
  return {UniqueTeam(state, Team(x)), UniqueTeam(state, Team(y))};
}

inline TeamUniqueId TeamUniqueId::generate() {
  (void)detail::live_state("TeamUniqueId::generate");
  nvshmemx_team_uniqueid_t raw = 0;
  detail::check(::nvshmemx_team_get_uniqueid(&raw), "nvshmemx_team_get_uniqueid", "could not make a team unique id");
  return TeamUniqueId(raw);
}

inline UniqueTeam UniqueTeam::init(TeamUniqueId id, int npes, int index, const nvshmem_team_config_t *config,
                                   long config_mask) {
  std::shared_ptr<detail::RuntimeState> state = detail::live_state("UniqueTeam::init");
  nvshmem_team_config_t with_id = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  if (config) with_id = *config;
  with_id.uniqueid = id.raw();
  nvshmem_team_t team = NVSHMEM_TEAM_INVALID;
  detail::check(::nvshmemx_team_init(&team, &with_id, config_mask | NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, npes, index),
                "nvshmemx_team_init",
                "team of " + std::to_string(npes) + " PEs from unique id " + std::to_string(id.raw()) + " (index " +
                    std::to_string(index) + ") failed");
  return UniqueTeam(std::move(state), Team(team));
}

inline int Runtime::team_my_pe(Team team) const {
  return team_my_pe(team.handle());
}
inline int Runtime::team_n_pes(Team team) const {
  return team_n_pes(team.handle());
}

}  // namespace nvshmem

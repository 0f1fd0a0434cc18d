/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names people give containers and pods, read from the runtimes' own state:
 *
 *   docker      <data root>/containers/<id>/config.v2.json  ("ID", "Name": "/web")
 *   podman      <storage>/<driver>-containers/containers.json  ([{"id", "names"}]),
 *               root's storage and the invoking user's rootless one
 *               (~/.local/share/containers/storage)
 *   kubernetes  the kubelet's log links <log dir>/containers/<pod>_<ns>_<container>-<id>.log
 *               pointing into <log dir>/pods/<ns>_<pod>_<uid>/<container>/, and the pod
 *               directories <log dir>/pods/<ns>_<pod>_<uid> themselves
 *
 * A name is taken only for the exact id its record states (a Docker directory whose
 * config names another id, a kubelet link whose target names another pod or
 * container, is skipped): a report never shows a wrong name.  The state is read
 * with the invoking user's own rights (prof's capabilities grant no file access):
 * root reads all of it; a user reads only what is theirs (rootless podman), and gets
 * ids alone for the rest.
 *
 * The parsers are pure functions over a buffer; runtime_names__load() is the shell
 * that reads the directories.
 */
#ifndef PROF_SCOPE_RUNTIME_NAMES_H
#define PROF_SCOPE_RUNTIME_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "prof/scope/containers.h"

#define RUNTIME_NAME_MAX 400            /* longest name kept: ns(63)/pod(253)/container(63) */
#define RUNTIME_DIRS_MAX 4              /* data roots of one runtime looked in */
#define RUNTIME_FILE_MAX (64u << 20)    /* the largest state file read */

enum runtime_kind { RUNTIME_DOCKER, RUNTIME_PODMAN, RUNTIME_KUBERNETES, RUNTIME_POD };

/* One name: of a container (id: its 64 hex digits) or of a pod (RUNTIME_POD, id: its
 * uid with dashes, name "namespace/pod"). */
struct runtime_name {
	enum runtime_kind kind;
	char id[CONTAINER_POD_UID_MAX + 1];
	char *name;
};

struct runtime_names {
	struct runtime_name *v;
	size_t nr, cap;
};

/* Where to look: "" entries are unused. */
struct runtime_dirs {
	char docker[RUNTIME_DIRS_MAX][256];     /* data roots (dockerd --data-root) */
	char podman[RUNTIME_DIRS_MAX][256];     /* storage graph roots */
	char kubelet[RUNTIME_DIRS_MAX][256];    /* the directory holding pods/ and containers/ */
	bool rootless_podman;                   /* also the invoking user's rootless storage */
};

/* The runtimes' defaults: /var/lib/docker, /var/lib/containers/storage, /var/log, and the
 * user's rootless podman storage. */
void runtime_dirs__defaults(struct runtime_dirs *d);

/* Set one runtime's list from a colon-separated list of absolute paths (a prof.conf
 * value).  kind: RUNTIME_DOCKER, RUNTIME_PODMAN or RUNTIME_KUBERNETES.  0, or
 * -EINVAL (a relative path, too many or too long) with a message in err. */
int runtime_dirs__set(struct runtime_dirs *d, enum runtime_kind kind, const char *list, char *err,
		      size_t errlen);

/* The looked-in places as text ("/var/lib/docker, ..."), for messages. */
void runtime_dirs__describe(const struct runtime_dirs *d, char *buf, size_t len);

/*
 * Docker's config.v2.json of a container: its id (lower case) and name without the
 * leading '/'.  0; -EINVAL when the text is not such a file (truncated, not JSON, no
 * 64-hex "ID" or no "Name") or the name is empty, longer than RUNTIME_NAME_MAX or
 * holds a NUL; -ENOMEM.  *ret_name is malloc'd.
 */
int runtime_names__parse_docker(const char *buf, size_t len, char id[CONTAINER_ID_LEN + 1], char **ret_name);

/*
 * Podman's (containers/storage's) containers.json: each entry's id and its first
 * name, added to n as RUNTIME_PODMAN.  Entries that are not well formed are skipped
 * (their count added to *ret_skipped when not NULL).  0; -EINVAL when the text is
 * not a JSON array; -ENOMEM.
 */
int runtime_names__parse_podman(const char *buf, size_t len, struct runtime_names *n, size_t *ret_skipped);

/*
 * A kubelet pod log directory's name, "<namespace>_<pod>_<uid>": the uid (lower case,
 * dashes) and "namespace/pod" (malloc'd).  0, -EINVAL when it is not one, -ENOMEM.
 */
int runtime_names__parse_pod_dir(const char *dirname, char uid[CONTAINER_POD_UID_MAX + 1], char **ret_name);

/*
 * A kubelet container log link, its name "<pod>_<namespace>_<container>-<id>.log"
 * and its target ".../<namespace>_<pod>_<uid>/<container>/<n>.log": the container's
 * id and "namespace/pod/container" (malloc'd), when both agree.  0; -EINVAL when
 * they are not such or disagree; -ENOMEM.
 */
int runtime_names__parse_container_link(const char *linkname, const char *target,
					char id[CONTAINER_ID_LEN + 1], char **ret_name);

/* Add a name (copied).  0 or -ENOMEM. */
int runtime_names__add(struct runtime_names *n, enum runtime_kind kind, const char *id, const char *name);

/*
 * Read every name the directories of d hold and the caller may read.  A directory or
 * file missing or unreadable is skipped (*ret_unreadable counts those refused for
 * the rights, when not NULL).  0 or -ENOMEM.
 */
int runtime_names__load(const struct runtime_dirs *d, struct runtime_names *n, size_t *ret_unreadable);

/*
 * The same for these container ids only (64 hex digits each), and no pods: Docker's
 * directories of those ids are read, not the whole data root, so naming a file's
 * few containers costs little on a host with thousands.
 */
int runtime_names__load_ids(const struct runtime_dirs *d, const char *const *ids, size_t nr_ids,
			    struct runtime_names *n, size_t *ret_unreadable);

/* The name of exactly this container id (64 digits) or pod uid, or NULL. */
const char *runtime_names__of(const struct runtime_names *n, const char *id, bool pod);

/*
 * What a --container or --pod argument that is not an id names: the ids of the
 * containers (pod false: docker/podman names, or "namespace/pod/container") or pods
 * (pod true: "namespace/pod") called exactly arg, up to max into ids, and how many
 * there are.
 */
size_t runtime_names__match(const struct runtime_names *n, const char *arg, bool pod,
			    const struct runtime_name **ret, size_t max);

/*
 * Whether a --container argument is a name to look up (false: an id or id prefix
 * as containers__parse_id() takes it), and a --pod one ("namespace/pod"; false: a uid).
 */
bool runtime_names__is_name(const char *arg, bool pod);

/* Whether a --container argument is a whole id (64 hex digits, after a runtime's
 * "scheme://" or not): then it is no one's name. */
bool runtime_names__whole_id(const char *arg);

/*
 * The id (64 hex digits) or pod uid arg names in n, into id.  where: the places
 * looked in, unreadable: how many of them the caller could not read (for the
 * message).  For a container argument that is an id prefix as well, it is refused
 * when it is also another container's exact name.  0; -EAGAIN when arg is an id
 * (or prefix) to look for as one; -ENOENT (no such name), -EEXIST (several, or a
 * name and a prefix both), each with a message in err that names the candidates.
 * live (NULL: none) says whether an id's container or pod runs (has its cgroup):
 * of several of one name (a Kubernetes container restarted, its old log link still
 * there; a stopped Docker container and a podman one) the one that runs is meant.
 */
int runtime_names__resolve(const struct runtime_names *n, const char *arg, bool pod, const char *where,
			   size_t unreadable, bool (*live)(const char *id, bool pod, void *ctx), void *live_ctx,
			   char id[CONTAINER_POD_UID_MAX + 1], char *err, size_t errlen);

/* Free the names; n is empty again. */
void runtime_names__release(struct runtime_names *n);

#endif

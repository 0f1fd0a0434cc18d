/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A shared object that is no HotSpot, built as libjvm.so for tests/integration/jvm's
 * refusals: it exports HotSpot's self-description symbols (as a JVM's libjvm.so
 * exports them, 8-byte values) over tables describing nothing prof needs, which
 * prof-jvm-host then makes wrong in one way or another.
 */
#include <stddef.h>
#include <stdint.h>

struct s_entry { const char *type, *field, *type_string; int32_t is_static; uint64_t offset; void *address; };
struct t_entry { const char *type, *super; int32_t is_oop, is_int, is_unsigned; uint64_t size; };
struct n_entry { const char *name; uint64_t value; };

static struct s_entry structs[] = { { "Thread", "_osthread", "OSThread*", 0, 8, NULL }, { 0 } };
static struct t_entry types[] = { { "Thread", NULL, 0, 0, 0, 512 }, { 0 } };
static struct n_entry consts[] = { { 0 } };

struct s_entry *gHotSpotVMStructs = structs;
uint64_t gHotSpotVMStructEntryArrayStride = sizeof(struct s_entry);
uint64_t gHotSpotVMStructEntryTypeNameOffset = offsetof(struct s_entry, type);
uint64_t gHotSpotVMStructEntryFieldNameOffset = offsetof(struct s_entry, field);
uint64_t gHotSpotVMStructEntryTypeStringOffset = offsetof(struct s_entry, type_string);
uint64_t gHotSpotVMStructEntryIsStaticOffset = offsetof(struct s_entry, is_static);
uint64_t gHotSpotVMStructEntryOffsetOffset = offsetof(struct s_entry, offset);
uint64_t gHotSpotVMStructEntryAddressOffset = offsetof(struct s_entry, address);
struct t_entry *gHotSpotVMTypes = types;
uint64_t gHotSpotVMTypeEntryArrayStride = sizeof(struct t_entry);
uint64_t gHotSpotVMTypeEntryTypeNameOffset = offsetof(struct t_entry, type);
uint64_t gHotSpotVMTypeEntrySuperclassNameOffset = offsetof(struct t_entry, super);
uint64_t gHotSpotVMTypeEntryIsOopTypeOffset = offsetof(struct t_entry, is_oop);
uint64_t gHotSpotVMTypeEntryIsIntegerTypeOffset = offsetof(struct t_entry, is_int);
uint64_t gHotSpotVMTypeEntryIsUnsignedOffset = offsetof(struct t_entry, is_unsigned);
uint64_t gHotSpotVMTypeEntrySizeOffset = offsetof(struct t_entry, size);
struct n_entry *gHotSpotVMIntConstants = consts;
uint64_t gHotSpotVMIntConstantEntryArrayStride = sizeof(struct n_entry);
uint64_t gHotSpotVMIntConstantEntryNameOffset = offsetof(struct n_entry, name);
uint64_t gHotSpotVMIntConstantEntryValueOffset = offsetof(struct n_entry, value);
struct n_entry *gHotSpotVMLongConstants = consts;
uint64_t gHotSpotVMLongConstantEntryArrayStride = sizeof(struct n_entry);
uint64_t gHotSpotVMLongConstantEntryNameOffset = offsetof(struct n_entry, name);
uint64_t gHotSpotVMLongConstantEntryValueOffset = offsetof(struct n_entry, value);

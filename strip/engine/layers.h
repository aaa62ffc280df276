/*
 * The layers' own state inside struct hs_state, one struct each, owned by
 * its file (strip/engine/internal.h has the map). Private: the engine's
 * files read them and nothing else; a front end sees them only as room in
 * the state it allocates (hprof.h), and asks what it needs of them through
 * the results block or hprof.h's functions. Included by hprof.h alone,
 * after the configuration structs they keep a copy of. Each layer's large
 * tables and caches are the caller's memory (hs_config), not in here.
 */
#ifndef HPROFSTRIP_LAYERS_H
#define HPROFSTRIP_LAYERS_H

/* HS_KEEP_STRINGS (keep.c) */
struct hs_keeping {
	struct hs_keep cfg;        /* the caller's tables and callbacks */
	/* ids of the STRING records naming java/lang/String (or, Android,
	 * java.lang.String), java/lang/Thread, "value" and "name": a name
	 * may have more than one (the first 4 are kept) */
	uint64_t names[4][4];
	uint64_t class_string, class_thread;
	unsigned char expect;      /* the last sub-record was a String whose
	                              layout is not known yet (ART) */
	uint64_t rest;             /* instance bytes after the field read */
	uint64_t cls_id, cls_super;/* the class dump being read */
	uint32_t cls_bytes;
	int32_t cls_ref;
	unsigned pend_count, pend_hand, cls_count;
	uint64_t held_id;          /* the held array: its id, */
	size_t held_len;           /* its bytes held (header + elements), */
	size_t held_need;          /* and its full length; 0: none held */
	unsigned char held_hdr[20];/* its header; the elements are in
	                              cfg.hold */
	uint64_t claimed;          /* the String value kept as xlook showed */
	unsigned xlook_len;        /* the bytes after a heap record that */
	unsigned char xlook[9 + 64];/* ended with an array held: the next
	                              record's header and the start of its
	                              first sub-record, up to a String's
	                              value */
	unsigned look_len, look_need; /* an instance gathered behind it */
	unsigned char look[64];
};

/* HS_KEEP_BITMAPS (bitmap.c): the keep layer's second source */
struct hs_bitmaps {
	/* ids of the STRING records naming android/graphics/Bitmap (or
	 * android.graphics.Bitmap), its $DumpData, "mBuffer" and "buffers"
	 * (the first 2 of each) */
	uint64_t names[4][2];
	uint64_t class_bitmap, class_dumpdata;
	unsigned char dumped;      /* bit 0: Bitmap's class dump came, bit 1:
	                              DumpData's */
	unsigned char field;       /* the field being read (keep_found): 1 a
	                              Bitmap's mBuffer, 2 a DumpData's
	                              buffers; 0 neither */
	uint64_t elems;            /* PH_ELEMS: the ids left to read of a
	                              claimed object array */
	unsigned sig_len, sig_need;/* PH_SIG: a byte[]'s header and first
	                              elements gathered, of those needed */
	unsigned char sig_hdr;     /* ... the header's bytes among them */
	unsigned char sig[20 + 12];
};

/* HS_REDACT (redact.c) */
struct hs_redacting {
	struct hs_redact cfg;      /* the caller's tables */
	uint64_t cls_id, cls_super;/* the class dump being read */
	uint32_t cls_first, cls_count, cls_bytes;
	unsigned char cls_record;  /* its field list goes in the tables */
	unsigned char cls_fw;      /* the runtime's: its statics stay */
	unsigned char cls_sized;   /* a listed class: 1 + its first pair,
	                              0: not */
	unsigned char zero_rest;   /* a fallback: the rest of its heap record
	                              goes out as zeros (and of the stream,
	                              for a bad file header) */
	uint64_t filler_name;      /* the STRING id, then the class id, of */
	uint64_t filler_class;     /* jdk.internal.vm.FillerElement[] (a GC
	                              filler, JDK-8391761): its words are dead
	                              memory, not references: zeros */
	const struct hs_layout *walk; /* the instance being read: the class
	                              whose fields come next, */
	uint32_t walk_i;           /* and its next field */
	/* the caches in use, as hs_init took them from cfg (redact_init) */
	unsigned nsized;           /* ids noted, at most cfg.sized_slots */
	struct hs_sized *sized;    /* NULL: none */
	uint32_t npatch;           /* the fast path's patches of the run */
	struct hs_patch *patch;    /* NULL: none */
	struct hs_flat *flat;      /* by class id, direct mapped: cfg.flat, */
	unsigned flat_mask;        /* flat_mask + 1 of them, */
	struct hs_flat flat_one;   /* or this one */
};

/* HS_REDACT_NAMES, HS_UNREDACT (names.c): the STRING text going out */
struct hs_naming {
	struct hs_names cfg;
	uint64_t id;               /* its id */
	uint32_t len, at;          /* its bytes, and those out so far */
	uint64_t h;                /* the token's hash of the word so far */
	unsigned char lead;        /* 1: at the text's start, 2: in its
	                              leading '['s (an array class) */
	unsigned char tok;         /* tokenized (or given back) */
	const unsigned char *orig; /* HS_UNREDACT: the text given back */
};

/* HS_STREAM (segment.c) */
struct hs_segments {
	unsigned char *buf;        /* the segment being gathered */
	size_t len;
	size_t sub_start;          /* len when the sub-record began */
	unsigned char gather;      /* in a heap record: output gathers in buf */
	unsigned char sizing;      /* the sub-record's header was taken to
	                              decide its segment first */
	unsigned char time[4];     /* the input heap record's time field */
	uint64_t own_left;         /* bytes left of a segment of its own */
	uint64_t own_start;        /* its output offset, header included */
};

/* HS_SALVAGE (salvage.c): the primitive array classes by element type
 * (viewers need their class dumps to show such arrays) */
struct hs_salvaging {
	uint64_t arr_name[12];     /* STRING ids of "[B", "byte[]" ... + 1 */
	uint64_t arr_class[12];    /* LOAD_CLASS ids of those classes + 1 */
	uint32_t arr_trace[12];    /* ... their stack trace serials */
	uint64_t obj_name, obj_class; /* java.lang.Object's, + 1 */
	unsigned arr_dumped;       /* bit t: the class dump of type t came */
	unsigned arr_used;         /* bit t: an array of type t went out */
};

#endif

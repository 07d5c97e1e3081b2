package io.strata.engine;

/**
 * Every magic number, version, size and type of Strata's on-disk formats, in one place. The
 * layouts themselves are specified in {@code docs/format/*.md}; all integers are little-endian,
 * all checksums CRC-32C, all times unsigned 32-bit unix seconds.
 */
public final class DiskFormat {
    private DiskFormat() {
    }

    // ---- datafile -------------------------------------------------------------------------
    /** "STRATADF" read as a little-endian long. */
    public static final long DATAFILE_MAGIC = 0x4644415441525453L;
    /** 2: extents of version 2 (compact tables, metric numbers); version 1 files are not read. */
    public static final int DATAFILE_VERSION = 2;
    /** The superblock; extents start right after it. */
    public static final int DATAFILE_SUPERBLOCK_SIZE = 4096;
    public static final String DATAFILE_PREFIX = "datafile-";
    public static final String DATAFILE_SUFFIX = ".ndf";

    // ---- extent ---------------------------------------------------------------------------
    /** "SEXT". */
    public static final int EXTENT_MAGIC = 0x54584553;
    public static final int EXTENT_VERSION = 2;
    /**
     * magic u32, version u8, compression u8, pages u16, stored length u32, table length u16,
     * reserved u16; the table follows. Compression, pages and stored length repeat the table's,
     * so that a scan knows an extent's length from these 16 bytes.
     */
    public static final int EXTENT_PREFIX_SIZE = 16;
    /** The fixed part of an extent (version 1 called it the header). */
    public static final int EXTENT_HEADER_SIZE = EXTENT_PREFIX_SIZE;
    /** Each of the two checksums (table, payload). */
    public static final int EXTENT_CRC_SIZE = 4;
    /** Largest table the u16 length field can say. */
    public static final int EXTENT_MAX_TABLE = 0xFFFF;
    /** Bytes that always hold the prefix, the largest table and its checksum. */
    public static final int EXTENT_MAX_HEADER = EXTENT_PREFIX_SIZE + EXTENT_MAX_TABLE + EXTENT_CRC_SIZE;
    public static final int EXTENT_MAX_PAGES = 64;
    public static final int COMPRESSION_NONE = 0;
    public static final int COMPRESSION_LZ4 = 1;

    // ---- pages ----------------------------------------------------------------------------
    /**
     * The size of a version-1 page descriptor. Version 2 descriptors are variable-length (see
     * ExtentTable); kept only for code that still computes offsets of the old layout.
     */
    @Deprecated
    public static final int PAGE_DESCRIPTOR_SIZE = 32;
    /** Tier 0: 4-byte Netdata storage numbers. */
    public static final int PAGE_TYPE_TIER0 = 0;
    /** Tier 1 and above: 16-byte aggregates (float sum, min, max; u16 count, anomaly count). */
    public static final int PAGE_TYPE_TIER1 = 1;
    public static final int TIER0_POINT_SIZE = 4;
    public static final int TIER1_POINT_SIZE = 16;
    public static final int TIER0_PAGE_BYTES = 4096;
    public static final int TIER1_PAGE_BYTES = 2048;
    public static final int TIER2_PAGE_BYTES = 384;

    // ---- journal v1 -----------------------------------------------------------------------
    /** "STRATAJ1". */
    public static final long JOURNAL_V1_MAGIC = 0x314A415441525453L;
    public static final int JOURNAL_V1_VERSION = 2;
    public static final int JOURNAL_V1_SUPERBLOCK_SIZE = 4096;
    /** "SJT1". */
    public static final int JOURNAL_V1_TX_MAGIC = 0x31544A53;
    /** magic u32, type u8, reserved u8, table length u16, sequence u32, extent offset u64, extent length u32. */
    public static final int JOURNAL_V1_TX_HEADER_SIZE = 24;
    /** An extent was appended; the table is the extent's. */
    public static final int JOURNAL_V1_TX_EXTENT_STORED = 1;
    /** Metric definitions only (written by recovery for numbers no intact extent defines any more). */
    public static final int JOURNAL_V1_TX_DEFINITIONS = 2;
    public static final String JOURNAL_V1_SUFFIX = ".njf";

    // ---- journal v2 -----------------------------------------------------------------------
    /** "STRATAJ2". */
    public static final long JOURNAL_V2_MAGIC = 0x324A415441525453L;
    public static final int JOURNAL_V2_VERSION = 2;
    public static final int JOURNAL_V2_HEADER_SIZE = 128;
    /** offset u64, length u32. */
    public static final int JOURNAL_V2_EXTENT_ENTRY_SIZE = 12;
    /** uuid 16, first time u32, last time u32, pages u32, list offset u32, datafile metric number u32. */
    public static final int JOURNAL_V2_METRIC_ENTRY_SIZE = 36;
    /** In a metric's page list, for its blocks after the first: start time u32, offset u32 of the block's first page. */
    public static final int JOURNAL_V2_BLOCK_ENTRY_SIZE = 8;
    /** Pages of a metric per block: lookups binary-search blocks, then decode at most a block before the range. */
    public static final int JOURNAL_V2_PAGES_PER_BLOCK = 64;
    public static final String JOURNAL_V2_SUFFIX = ".njfv2";

    // ---- metadata log ---------------------------------------------------------------------
    /** "STRATAMD". */
    public static final long METADATA_MAGIC = 0x444D415441525453L;
    public static final int METADATA_VERSION = 1;
    public static final String METADATA_FILE = "metadata.log";

    /** Name of a datafile: {@code datafile-<tier>-<fileno, 10 digits>.ndf}. */
    public static String datafileName(int tier, int fileno) {
        return DATAFILE_PREFIX + tier + "-" + String.format("%010d", fileno) + DATAFILE_SUFFIX;
    }

    public static String journalV1Name(int tier, int fileno) {
        return "journalfile-" + tier + "-" + String.format("%010d", fileno) + JOURNAL_V1_SUFFIX;
    }

    public static String journalV2Name(int tier, int fileno) {
        return "journalfile-" + tier + "-" + String.format("%010d", fileno) + JOURNAL_V2_SUFFIX;
    }

    /** The file number of a datafile name, or -1 when the name is not one. */
    public static int parseDatafileNumber(String name, int tier) {
        String prefix = DATAFILE_PREFIX + tier + "-";
        if (!name.startsWith(prefix) || !name.endsWith(DATAFILE_SUFFIX)) {
            return -1;
        }
        String digits = name.substring(prefix.length(), name.length() - DATAFILE_SUFFIX.length());
        if (digits.length() != 10) {
            return -1;
        }
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Page size in bytes of a tier, as DBENGINE sizes them. */
    public static int pageBytes(int tier) {
        return tier == 0 ? TIER0_PAGE_BYTES : tier == 1 ? TIER1_PAGE_BYTES : TIER2_PAGE_BYTES;
    }

    /** Points per full page of a tier. */
    public static int pagePoints(int tier) {
        return tier == 0 ? TIER0_PAGE_BYTES / TIER0_POINT_SIZE : pageBytes(tier) / TIER1_POINT_SIZE;
    }
}

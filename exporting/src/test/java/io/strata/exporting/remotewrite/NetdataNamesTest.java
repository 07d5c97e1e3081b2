package io.strata.exporting.remotewrite;

import io.strata.exporting.config.DataSource;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The names Netdata 1.37.1's remote-write connector gives (exporting/prometheus/prometheus.c). */
class NetdataNamesTest {

    @Test
    void averageNamesCarryTheUnits() {
        assertEquals("netdata_system_cpu_percentage_average",
                NetdataNames.metricName("netdata", "system.cpu", "percentage", DataSource.AVERAGE));
        assertEquals("netdata_disk_io_KiB_persec_average",
                NetdataNames.metricName("netdata", "disk.io", "KiB/s", DataSource.AVERAGE));
        assertEquals("netdata_cpu_cpufreq_MHz_average",
                NetdataNames.metricName("netdata", "cpu.cpufreq", "MHz", DataSource.AVERAGE));
        assertEquals("netdata_mem_pgfaults_faults_persec_average",
                NetdataNames.metricName("netdata", "mem.pgfaults", "faults/s", DataSource.AVERAGE));
        assertEquals("netdata_system_load_load_average",
                NetdataNames.metricName("netdata", "system.load", "load", DataSource.AVERAGE));
        assertEquals("netdata_web_log_x_percent_average",
                NetdataNames.metricName("netdata", "web_log.x", "%", DataSource.AVERAGE));
    }

    @Test
    void sumNamesHaveNoUnits() {
        assertEquals("netdata_system_cpu_sum", NetdataNames.metricName("netdata", "system.cpu", "percentage",
                DataSource.SUM));
    }

    @Test
    void sanitizesAsNetdataDoes() {
        assertEquals("net_packets", NetdataNames.name("net.packets"));
        // each UTF-8 byte of a non-ASCII character becomes '_'
        assertEquals("temp__C", NetdataNames.name("temp\u00b0C"));
        assertEquals("__s", NetdataNames.units("/s"));
        assertEquals("_B_persec", NetdataNames.units("B/s"));
        assertEquals("say \\\"hi\\\" \\\\ done", NetdataNames.labelValue("say \"hi\" \\ done"));
        assertEquals(255, NetdataNames.labelValue("x".repeat(1000)).length());
    }
}

package io.strata.query.data;

/**
 * The complementary distribution of the two-sided Kolmogorov-Smirnov statistic,
 * {@code P(D_n >= x)}, computed with the method of Simard and L'Ecuyer ("Computing the Two-Sided
 * Kolmogorov-Smirnov Distribution", Journal of Statistical Software 39(11), 2011), which is what
 * Netdata's metric correlations use: exact formulas near 0 and 1, the Durbin matrix and
 * Pomeranz's recursion for small samples, Smirnov's upper-tail sum and the Pelz-Good expansion
 * for large ones. Written from the paper's description; the selection thresholds are the
 * paper's.
 */
public final class KolmogorovSmirnov {

    private KolmogorovSmirnov() {
    }

    /** Up to this n the exact algorithms are used. */
    private static final int N_EXACT = 500;
    /** Up to this n the Durbin matrix is still used near 0. */
    private static final int N_KOLMO = 100_000;
    private static final double LN2 = 0.69314718055994530941;

    /** {@code P(D_n >= x)}. */
    public static double fbar(int n, double x) {
        double w = n * x * x;
        double v = fbarSpecial(n, x);
        if (v >= 0.0) {
            return v;
        }
        if (n <= N_EXACT) {
            return w < 4.0 ? 1.0 - cdf(n, x) : 2.0 * plusBarUpper(n, x);
        }
        if (w >= 2.65) {
            return 2.0 * plusBarUpper(n, x);
        }
        return 1.0 - cdf(n, x);
    }

    /** {@code P(D_n < x)}. */
    public static double cdf(int n, double x) {
        double w = n * x * x;
        double u = cdfSpecial(n, x);
        if (u >= 0.0) {
            return u;
        }
        if (n <= N_EXACT) {
            if (w < 0.754693) {
                return durbin(n, x);
            }
            if (w < 4.0) {
                return pomeranz(n, x);
            }
            return 1.0 - fbar(n, x);
        }
        if (w * x * n <= 7.0 && n <= N_KOLMO) {
            return durbin(n, x);
        }
        return pelz(n, x);
    }

    /** Ruben-Gambino's exact values near the ends; -1 elsewhere. */
    private static double cdfSpecial(int n, double x) {
        if (n * x * x >= 18.0 || x >= 1.0) {
            return 1.0;
        }
        if (x <= 0.5 / n) {
            return 0.0;
        }
        if (n == 1) {
            return 2.0 * x - 1.0;
        }
        if (x <= 1.0 / n) {
            double t = 2.0 * x * n - 1.0;
            if (n <= N_EXACT) {
                return factorialOverPower(n) * Math.pow(t, n);
            }
            return Math.exp(logFactorial(n) + n * Math.log(t / n));
        }
        if (x >= 1.0 - 1.0 / n) {
            return 1.0 - 2.0 * Math.pow(1.0 - x, n);
        }
        return -1.0;
    }

    private static double fbarSpecial(int n, double x) {
        double w = n * x * x;
        if (w >= 370.0 || x >= 1.0) {
            return 0.0;
        }
        if (w <= 0.0274 || x <= 0.5 / n) {
            return 1.0;
        }
        if (n == 1) {
            return 2.0 - 2.0 * x;
        }
        if (x <= 1.0 / n) {
            double t = 2.0 * x * n - 1.0;
            if (n <= N_EXACT) {
                return 1.0 - factorialOverPower(n) * Math.pow(t, n);
            }
            return 1.0 - Math.exp(logFactorial(n) + n * Math.log(t / n));
        }
        if (x >= 1.0 - 1.0 / n) {
            return 2.0 * Math.pow(1.0 - x, n);
        }
        return -1.0;
    }

    /** {@code n! / n^n}. */
    private static double factorialOverPower(int n) {
        double r = 1.0 / n;
        for (int i = 2; i <= n; i++) {
            r *= (double) i / n;
        }
        return r;
    }

    /** {@code ln n!}: summed for small n, Stirling's series beyond. */
    static double logFactorial(int n) {
        if (n <= 30) {
            double s = 0;
            for (int i = 2; i <= n; i++) {
                s += Math.log(i);
            }
            return s;
        }
        double x = n + 1;
        double y = 1.0 / (x * x);
        double z = ((-(5.95238095238E-4 * y) + 7.936500793651E-4) * y - 2.7777777777778E-3) * y
                + 8.3333333333333E-2;
        return ((x - 0.5) * Math.log(x) - x) + 9.1893853320467E-1 + z / x;
    }

    /** The one-sided statistic's upper tail by its asymptotic formula (very large n). */
    private static double plusBarAsymptotic(int n, double x) {
        double t = 6.0 * n * x + 1;
        double z = t * t / (18.0 * n);
        double v = 1.0 - (2.0 * z * z - 4.0 * z - 1.0) / (18.0 * n);
        if (v <= 0.0) {
            return 0.0;
        }
        v = v * Math.exp(-z);
        return Math.min(1.0, v);
    }

    /** The one-sided statistic's upper tail by Smirnov's sum, summed outwards from its largest terms. */
    private static double plusBarUpper(int n, double x) {
        final double eps = 1.0e-12;
        if (n > 200_000) {
            return plusBarAsymptotic(n, x);
        }
        int jmax = (int) (n * (1.0 - x));
        if (1.0 - x - (double) jmax / n <= 0.0) {
            jmax--;
        }
        int jdiv = n > 3000 ? 2 : 3;
        int j = jmax / jdiv + 1;
        double logCom = logFactorial(n) - logFactorial(j) - logFactorial(n - j);
        double logJmax = logCom;
        double sum = 0.0;
        while (j <= jmax) {
            double q = (double) j / n + x;
            double t = Math.exp(logCom + (j - 1) * Math.log(q) + (n - j) * Math.log1p(-q));
            sum += t;
            logCom += Math.log((double) (n - j) / (j + 1));
            if (t <= sum * eps) {
                break;
            }
            j++;
        }
        j = jmax / jdiv;
        logCom = logJmax + Math.log((double) (j + 1) / (n - j));
        while (j > 0) {
            double q = (double) j / n + x;
            double t = Math.exp(logCom + (j - 1) * Math.log(q) + (n - j) * Math.log1p(-q));
            sum += t;
            logCom += Math.log((double) j / (n - j + 1));
            if (t <= sum * eps) {
                break;
            }
            j--;
        }
        sum *= x;
        sum += Math.exp(n * Math.log1p(-x));
        return sum;
    }

    /** Pelz and Good's asymptotic expansion of the lower tail (large n). */
    private static double pelz(int n, double x) {
        final int jMax = 20;
        final double eps = 1.0e-10;
        final double c = 2.506628274631001;
        final double c2 = 1.2533141373155001;
        final double pi2 = Math.PI * Math.PI;
        final double pi4 = pi2 * pi2;
        final double racn = Math.sqrt(n);
        final double z = racn * x;
        final double z2 = z * z;
        final double z4 = z2 * z2;
        final double z6 = z4 * z2;
        final double w = pi2 / (2.0 * z * z);

        double term = 1;
        double sum = 0;
        for (int j = 0; j <= jMax && term > eps * sum; j++) {
            double ti = j + 0.5;
            term = Math.exp(-ti * ti * w);
            sum += term;
        }
        sum *= c / z;

        term = 1;
        double tom = 0;
        for (int j = 0; j <= jMax && Math.abs(term) > eps * Math.abs(tom); j++) {
            double ti = j + 0.5;
            term = (pi2 * ti * ti - z2) * Math.exp(-ti * ti * w);
            tom += term;
        }
        sum += tom * c2 / (racn * 3.0 * z4);

        term = 1;
        tom = 0;
        for (int j = 0; j <= jMax && Math.abs(term) > eps * Math.abs(tom); j++) {
            double ti = j + 0.5;
            term = 6 * z6 + 2 * z4 + pi2 * (2 * z4 - 5 * z2) * ti * ti + pi4 * (1 - 2 * z2) * ti * ti * ti * ti;
            term *= Math.exp(-ti * ti * w);
            tom += term;
        }
        sum += tom * c2 / (n * 36.0 * z * z6);

        term = 1;
        tom = 0;
        for (int j = 1; j <= jMax && term > eps * tom; j++) {
            double ti = j;
            term = pi2 * ti * ti * Math.exp(-ti * ti * w);
            tom += term;
        }
        sum -= tom * c2 / (n * 18.0 * z * z2);

        term = 1;
        tom = 0;
        for (int j = 0; j <= jMax && Math.abs(term) > eps * Math.abs(tom); j++) {
            double ti = j + 0.5;
            ti = ti * ti;
            term = -30 * z6 - 90 * z6 * z2 + pi2 * (135 * z4 - 96 * z6) * ti + pi4 * (212 * z4 - 60 * z2) * ti * ti
                    + pi2 * pi4 * ti * ti * ti * (5 - 30 * z2);
            term *= Math.exp(-ti * w);
            tom += term;
        }
        sum += tom * c2 / (racn * n * 3240.0 * z4 * z6);

        term = 1;
        tom = 0;
        for (int j = 1; j <= jMax && Math.abs(term) > eps * Math.abs(tom); j++) {
            double ti = (double) j * j;
            term = (3 * pi2 * ti * z2 - pi4 * ti * ti) * Math.exp(-ti * w);
            tom += term;
        }
        sum += tom * c2 / (racn * n * 108.0 * z6);
        return sum;
    }

    /** Pomeranz's recursion for the exact distribution (moderate n·x²), renormalised against underflow. */
    private static double pomeranz(int n, double x) {
        final double eps = 1.0e-15;
        final int eno = 350;
        final double reno = Math.scalb(1.0, eno);
        final double t = n * x;
        double[] a = new double[2 * n + 3];
        double[] floors = new double[2 * n + 3];
        double[] ceils = new double[2 * n + 3];
        limits(n, t, a, floors, ceils);
        double[][] v = new double[2][n + 2];
        double[][] h = new double[4][n + 2];
        v[1][1] = reno;
        int renormalisations = 1;
        double[] widths = {2.0 * a[2] / n, (1.0 - 2.0 * a[2]) / n, a[2] / n, 0};
        for (int s = 0; s < 4; s++) {
            h[s][0] = 1;
            for (int j = 1; j <= n + 1; j++) {
                h[s][j] = s == 3 ? 0 : widths[s] * h[s][j - 1] / j;
            }
        }
        int r1 = 0;
        int r2 = 1;
        for (int i = 2; i <= 2 * n + 2; i++) {
            int jlow = Math.max(1, 2 + (int) floors[i]);
            int jup = Math.min(n + 1, (int) ceils[i]);
            int klow = Math.max(1, 2 + (int) floors[i - 1]);
            int kup0 = (int) ceils[i - 1];
            double w = (a[i] - a[i - 1]) / n;
            int s = -1;
            for (int j = 0; j < 4; j++) {
                if (Math.abs(w - h[j][1]) <= eps) {
                    s = j;
                    break;
                }
            }
            double minsum = reno;
            r1 = (r1 + 1) & 1;
            r2 = (r2 + 1) & 1;
            for (int j = jlow; j <= jup; j++) {
                int kup = Math.min(kup0, j);
                double sum = 0;
                for (int k = kup; k >= klow; k--) {
                    sum += v[r1][k] * h[s][j - k];
                }
                v[r2][j] = sum;
                if (sum < minsum) {
                    minsum = sum;
                }
            }
            if (minsum < 1.0e-280) {
                for (int j = jlow; j <= jup; j++) {
                    v[r2][j] *= reno;
                }
                renormalisations++;
            }
        }
        double sum = v[r2][n + 1];
        double w = logFactorial(n) - renormalisations * eno * LN2 + Math.log(sum);
        return w >= 0 ? 1.0 : Math.exp(w);
    }

    /** The points A_i of Pomeranz's recursion with floor(A_i − t) and ceil(A_i + t), the limits of its sums. */
    private static void limits(int n, double t, double[] a, double[] floors, double[] ceils) {
        int ell = (int) t;
        double z = t - ell;
        double w = Math.ceil(t) - t;
        if (z > 0.5) {
            for (int i = 2; i <= 2 * n + 2; i += 2) {
                floors[i] = i / 2 - 2 - ell;
                ceils[i] = i / 2 + ell;
            }
            for (int i = 1; i <= 2 * n + 2; i += 2) {
                floors[i] = i / 2 - 1 - ell;
                ceils[i] = i / 2 + 1 + ell;
            }
        } else if (z > 0.0) {
            for (int i = 1; i <= 2 * n + 2; i++) {
                floors[i] = i / 2 - 1 - ell;
            }
            for (int i = 2; i <= 2 * n + 2; i++) {
                ceils[i] = i / 2 + ell;
            }
            ceils[1] = 1 + ell;
        } else {
            for (int i = 2; i <= 2 * n + 2; i += 2) {
                floors[i] = i / 2 - 1 - ell;
                ceils[i] = i / 2 - 1 + ell;
            }
            for (int i = 1; i <= 2 * n + 2; i += 2) {
                floors[i] = i / 2 - ell;
                ceils[i] = i / 2 + ell;
            }
        }
        if (w < z) {
            z = w;
        }
        a[0] = 0;
        a[1] = 0;
        a[2] = z;
        a[3] = 1 - a[2];
        for (int i = 4; i <= 2 * n + 1; i++) {
            a[i] = a[i - 2] + 1;
        }
        a[2 * n + 2] = n;
    }

    private static final double NORM = 1.0e140;
    private static final double INORM = 1.0e-140;
    private static final int LOGNORM = 140;

    /** Durbin's matrix formula (Marsaglia, Tsang and Wang's evaluation): the k-th diagonal element of H^n. */
    private static double durbin(int n, double d) {
        int k = (int) (n * d) + 1;
        int m = 2 * k - 1;
        double h = k - n * d;
        double[] hm = new double[m * m];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < m; j++) {
                hm[i * m + j] = i - j + 1 < 0 ? 0 : 1;
            }
        }
        for (int i = 0; i < m; i++) {
            hm[i * m] -= Math.pow(h, i + 1);
            hm[(m - 1) * m + i] -= Math.pow(h, m - i);
        }
        hm[(m - 1) * m] += 2 * h - 1 > 0 ? Math.pow(2 * h - 1, m) : 0;
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < m; j++) {
                if (i - j + 1 > 0) {
                    for (int g = 1; g <= i - j + 1; g++) {
                        hm[i * m + j] /= g;
                    }
                }
            }
        }
        double[] q = new double[m * m];
        int eq = power(hm, 0, q, m, n);
        double s = q[(k - 1) * m + k - 1];
        for (int i = 1; i <= n; i++) {
            s = s * i / n;
            if (s < INORM) {
                s *= NORM;
                eq -= LOGNORM;
            }
        }
        return s * Math.pow(10.0, eq);
    }

    private static void multiply(double[] a, double[] b, double[] c, int m) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < m; j++) {
                double s = 0;
                for (int k = 0; k < m; k++) {
                    s += a[i * m + k] * b[k * m + j];
                }
                c[i * m + j] = s;
            }
        }
    }

    /** {@code v = a^n}, returning v's decimal exponent (kept apart against overflow). */
    private static int power(double[] a, int ea, double[] v, int m, int n) {
        if (n == 1) {
            System.arraycopy(a, 0, v, 0, m * m);
            return ea;
        }
        int ev = power(a, ea, v, m, n / 2);
        double[] b = new double[m * m];
        multiply(v, v, b, m);
        int eb = 2 * ev;
        if (b[(m / 2) * m + (m / 2)] > NORM) {
            eb += renormalise(b);
        }
        if (n % 2 == 0) {
            System.arraycopy(b, 0, v, 0, m * m);
            ev = eb;
        } else {
            multiply(a, b, v, m);
            ev = ea + eb;
        }
        if (v[(m / 2) * m + (m / 2)] > NORM) {
            ev += renormalise(v);
        }
        return ev;
    }

    private static int renormalise(double[] v) {
        for (int i = 0; i < v.length; i++) {
            v[i] *= INORM;
        }
        return LOGNORM;
    }
}

"""stats.py: small statistics for the bench report, standard library only.

mean, sample standard deviation, 95% confidence interval of the mean
(Student t), coefficient of variation, Welch's unequal-variance t-test
with a two-sided p-value (t distribution through the regularised
incomplete beta function).
"""
import math


def mean(xs):
    if not xs:
        raise ValueError("mean of no values")
    return sum(xs) / len(xs)


def stdev(xs):
    """Sample standard deviation (n - 1); 0 for a single value."""
    if len(xs) < 2:
        return 0.0
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def cv(xs):
    """Coefficient of variation (stdev / |mean|); None when the mean is 0."""
    m = mean(xs)
    return stdev(xs) / abs(m) if m else None


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-14:
            break
    return h


def betainc(a, b, x):
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + \
        b * math.log(1.0 - x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_sf2(t, df):
    """Two-sided p-value P(|T| > |t|) of Student's t with df degrees."""
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p, df):
    """q with P(T <= q) = p (p > 0.5), by bisection on t_sf2."""
    target = 2.0 * (1.0 - p)
    lo, hi = 0.0, 1e4
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_sf2(mid, df) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def ci95(xs):
    """Half width of the 95% confidence interval of the mean; None for n < 2."""
    n = len(xs)
    if n < 2:
        return None
    return t_quantile(0.975, n - 1) * stdev(xs) / math.sqrt(n)


def welch(xs, ys):
    """Welch's t-test: (t, df, two-sided p).  None when either side has
    fewer than 2 values; p = 1 when both variances are 0 and the means
    are equal, 0 when they differ."""
    if len(xs) < 2 or len(ys) < 2:
        return None
    mx, my = mean(xs), mean(ys)
    vx, vy = stdev(xs) ** 2 / len(xs), stdev(ys) ** 2 / len(ys)
    if vx + vy == 0:
        return (0.0, float("inf"), 1.0 if mx == my else 0.0)
    t = (mx - my) / math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / ((vx ** 2 / (len(xs) - 1) if vx else 0.0) +
                           (vy ** 2 / (len(ys) - 1) if vy else 0.0))
    return (t, df, t_sf2(t, df))


def summary(xs):
    """{n, mean, ci95, cv, min, max} of the values that are not None."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return {"n": len(xs), "mean": mean(xs), "ci95": ci95(xs), "cv": cv(xs),
            "min": min(xs), "max": max(xs)}

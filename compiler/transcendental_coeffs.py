#!/usr/bin/env python3
"""Derives the constants of compiler/transcendental.cpp (prints C++ initialisers).

Polynomials are near-minimax Chebyshev fits (mpmath.chebyfit) at 60 digits, rounded to double;
the printed error is the fit's own error on the interval (before rounding the coefficients).
Split constants: a constant rounded to `bits` significant bits, then the remainder, so that a
product of the first parts with a small integer is exact in double.
"""
import mpmath as mp

mp.mp.dps = 60


def hexd(x):
    return float(x).hex()


def fit(name, f, a, b, deg):
    c, err = mp.chebyfit(f, [a, b], deg + 1, error=True)
    print(f"// {name}: degree {deg} on [{mp.nstr(a, 6)}, {mp.nstr(b, 6)}], fit error {mp.nstr(err, 3)}")
    print(f"constexpr double k{name}[] = {{" + ", ".join(hexd(x) for x in c) + "};")


def round_bits(x, bits):
    m, e = mp.frexp(x)
    return mp.ldexp(mp.nint(mp.ldexp(m, bits)), e - bits)


def split(name, x, parts):
    rest = x
    for i, bits in enumerate(parts):
        p = round_bits(rest, bits)
        print(f"constexpr double k{name}{i + 1} = {hexd(p)};  // {bits} bits")
        rest -= p


# exp2(f) = 1 + f*Q(f), |f| <= 1/2.
fit("Exp2Q", lambda f: (mp.power(2, f) - 1) / f if f != 0 else mp.log(2), -0.5, 0.5, 10)
# ln(1+f) = f - f^2/2 + s*(f^2/2 + z*T(z)), s = f/(2+f), z = s^2, |s| <= (sqrt2-1)/(sqrt2+1).
smax = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)


def log_t(z):
    if z == 0:
        return mp.mpf(2) / 3
    s = mp.sqrt(z)
    return (2 * mp.atanh(s) - 2 * s) / (s * z)


fit("LogT", log_t, 0, smax**2 * mp.mpf("1.0001"), 7)
# sin(r) = r + r^3*S(r^2), cos(r) = 1 - r^2/2 + r^4*C(r^2), |r| <= pi/4 (+ rounding slack).
zmax = (mp.pi / 4 * mp.mpf("1.001")) ** 2


def sin_s(z):
    if z == 0:
        return -mp.mpf(1) / 6
    s = mp.sqrt(z)
    return (mp.sin(s) - s) / (z * s)


def cos_c(z):
    if z == 0:
        return mp.mpf(1) / 24
    s = mp.sqrt(z)
    return (mp.cos(s) - 1 + z / 2) / (z * z)


fit("SinS", sin_s, 0, zmax, 6)
fit("CosC", cos_c, 0, zmax, 6)
split("PiO2_", mp.pi / 2, [33, 33, 33, 53])
print(f"constexpr double k2OverPi = {hexd(2 / mp.pi)};")
split("InvLn2_", 1 / mp.log(2), [21, 53])

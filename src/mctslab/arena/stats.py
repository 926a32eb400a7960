"""Match statistics the way chess engine testing does them: Elo, its 95% interval, and SPRT.

The conventions are fishtest's (the Stockfish testing framework,
``server/fishtest/stats/LLRcalc.py`` and ``stat_util.py``) and those of
Michel Van den Bergh's notes behind it:

- **Logistic Elo.** A score ``s`` (wins + draws/2 per game) is worth
  ``elo = -400 log10(1/s - 1)``, so ``s = 1 / (1 + 10**(-elo/400))``;
  a score of 0.75 is +190.8 Elo.
- **Results as frequencies** of outcomes with evenly spaced values in
  ``[0, 1]``: trinomial ``(L, D, W)`` per game (values 0, 1/2, 1), or
  pentanomial per *pair* of games played from one opening with colours
  swapped, ``(LL, LD+DL, LW+DD+WL, DW+WD, WW)`` (values 0, 1/4, 1/2, 3/4, 1
  per game). Pairs carry the correlation the opening induces between the
  two games, so the pentanomial variance is the right one (Van den Bergh,
  "A SPRT implementation using pentanomial frequencies"; it gives narrower,
  correct intervals than treating the games as independent).
- **Regularisation.** The frequencies are counts of games or pairs (whole
  numbers, at least one game or pair in all); a zero count is replaced by
  1e-3 (as fishtest does) so that every estimate below exists.
- **Elo interval.** The normal approximation to the mean score,
  ``mu +/- 1.96 sigma / sqrt(N)`` over the ``N`` games or pairs, mapped to
  Elo (fishtest's ``get_elo``); the interval is reported as its two ends,
  which are not symmetric around the estimate.
- **GSPRT.** H0: ``elo = elo0`` against H1: ``elo = elo1`` (logistic Elo).
  The generalised log-likelihood ratio is ``N * sum_i phat_i log(p1_i/p0_i)``
  where ``p_k`` is the maximum-likelihood distribution whose expected score
  is ``s_k = L(elo_k)``: ``p_i = phat_i / (1 + x (a_i - s))`` with ``x`` the
  root of ``sum_i phat_i (a_i - s) / (1 + x (a_i - s)) = 0`` (Van den Bergh,
  "Support of the MLE of a multinomial distribution with a mean constraint",
  Proposition 1.1; fishtest's ``MLE_expected`` and ``LLR_logistic``). The
  test stops at Wald's bounds ``log(beta/(1-alpha))`` and
  ``log((1-beta)/alpha)`` (+/-2.94 for alpha = beta = 0.05). fishtest's
  dynamic overshoot correction is not applied: a test that stops after
  every pair overshoots a bound by one pair's LLR jump at most.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real

from mctslab._validation import check_float, invalid

#: The 97.5% quantile of the standard normal law (two-sided 95% interval).
Z_95 = 1.959963984540054
#: What a zero frequency is replaced by (fishtest's ``regularize``).
REGULARISATION = 1e-3
#: The largest |elo0| and |elo1| of an SPRT. Its likelihoods need an expected score strictly
#: inside (0, 1), which a float loses past about +6300 Elo (a score of 1 - 1e-16); at 4000 it
#: is 1 - 1e-10, far beyond any hypothesis worth testing.
SPRT_ELO_LIMIT = 4000.0


def logistic_elo(score: float) -> float:
    """The Elo difference that a score in [0, 1] is worth (+/-inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def expected_score(elo: float) -> float:
    """The score per game expected at an Elo difference of ``elo``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _counts(frequencies: Sequence[float], owner: str) -> list[float]:
    """``frequencies`` as floats if they are trinomial or pentanomial counts of at least one
    game or pair; raise ValueError otherwise."""
    try:
        counts = list(frequencies)
    except TypeError:
        counts = []
    if len(counts) not in (3, 5):
        raise invalid("frequencies", owner, "3 (L, D, W) or 5 (pair) counts", frequencies)
    # Whole numbers: a count of games or pairs. Then a zero, the only count below 1, is the
    # only one regularised, as fishtest does.
    if not all(
        isinstance(count, Real)
        and not isinstance(count, bool)
        and math.isfinite(count)
        and count >= 0
        and float(count).is_integer()
        for count in counts
    ):
        raise invalid("frequencies", owner, "counts that are whole numbers >= 0", frequencies)
    if sum(counts) == 0:
        raise invalid("frequencies", owner, "counts of at least one game or pair", frequencies)
    return [float(count) for count in counts]


def _distribution(
    frequencies: Sequence[float], owner: str
) -> tuple[float, list[float], list[float]]:
    """``(N, values, probabilities)`` of regularised frequencies of evenly spaced outcomes."""
    counts = [count if count > 0 else REGULARISATION for count in _counts(frequencies, owner)]
    total = sum(counts)
    last = len(counts) - 1
    return total, [i / last for i in range(len(counts))], [c / total for c in counts]


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95% interval and the likelihood of superiority.

    ``score`` is the mean score per game; ``los`` the probability, under the
    normal approximation, that the true score is above 1/2.
    """

    elo: float
    lower: float
    upper: float
    score: float
    los: float


def elo_estimate(frequencies: Sequence[float]) -> EloEstimate:
    """The Elo estimate from trinomial ``(L, D, W)`` or pentanomial pair frequencies.

    They are counts of games or of pairs: whole numbers, at least one of them above 0.
    """
    samples, values, probabilities = _distribution(frequencies, "elo_estimate")
    mean = sum(p * a for p, a in zip(probabilities, values, strict=True))
    variance = sum(p * (a - mean) ** 2 for p, a in zip(probabilities, values, strict=True))
    error = math.sqrt(variance / samples)
    los = 0.5 * (1.0 + math.erf((mean - 0.5) / (error * math.sqrt(2.0))))
    return EloEstimate(
        elo=logistic_elo(mean),
        lower=logistic_elo(mean - Z_95 * error),
        upper=logistic_elo(mean + Z_95 * error),
        score=mean,
        los=los,
    )


def mle_with_mean(frequencies: Sequence[float], score: float) -> list[float]:
    """The maximum-likelihood outcome probabilities whose expected score is ``score``.

    Solves the secular equation of Proposition 1.1 (see the module doc) by
    bisection: its left side decreases strictly in ``x`` from +inf to -inf
    on the interval where every ``1 + x (a_i - s)`` is positive, so the root
    is bracketed from the start and bisection converges without fail.
    """
    _, values, probabilities = _distribution(frequencies, "mle_with_mean")
    if not 0.0 < score < 1.0:
        raise ValueError(f"The score must be in (0, 1). Got {score!r} instead.")
    shifted = [a - score for a in values]
    low, high = -1.0 / max(shifted), -1.0 / min(shifted)

    def secular(x: float) -> float:
        return sum(p * d / (1.0 + x * d) for p, d in zip(probabilities, shifted, strict=True))

    while True:
        middle = 0.5 * (low + high)
        if middle in (low, high):  # the bracket is down to adjacent floats
            break
        if secular(middle) > 0.0:
            low = middle
        else:
            high = middle
    return [p / (1.0 + middle * d) for p, d in zip(probabilities, shifted, strict=True)]


def log_likelihood_ratio(frequencies: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``), logistic Elo."""
    samples, _, probabilities = _distribution(frequencies, "log_likelihood_ratio")
    null = mle_with_mean(frequencies, expected_score(elo0))
    alternative = mle_with_mean(frequencies, expected_score(elo1))
    return samples * sum(
        p * (math.log(p1) - math.log(p0))
        for p, p0, p1 in zip(probabilities, null, alternative, strict=True)
    )


@dataclass(frozen=True)
class SPRT:
    """A sequential probability ratio test: H0 ``elo = elo0`` against H1 ``elo = elo1``.

    ``alpha`` bounds the chance of accepting H1 when H0 holds, ``beta`` that
    of accepting H0 when H1 holds (fishtest's defaults are 0.05 each); each is
    at most 1/2, and their sum below 1 (Wald 1945): at ``alpha + beta = 1``
    both bounds are 0 and the test would accept H1 before any game. ``elo0``
    and ``elo1`` are within +/-:data:`SPRT_ELO_LIMIT`.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        limit = SPRT_ELO_LIMIT
        check_float(self.elo0, "elo0", "SPRT", low=-limit, high=limit, low_inclusive=True)
        check_float(self.elo1, "elo1", "SPRT", low=-limit, high=limit, low_inclusive=True)
        check_float(self.alpha, "alpha", "SPRT", low=0.0, high=0.5)
        check_float(self.beta, "beta", "SPRT", low=0.0, high=0.5)
        if not self.alpha + self.beta < 1.0:
            raise invalid("beta", "SPRT", f"< 1 - alpha ({1.0 - self.alpha:g})", self.beta)
        if not self.elo1 > self.elo0:
            raise ValueError(
                f"The 'elo1' parameter of SPRT must be greater than elo0 ({self.elo0:g}). "
                f"Got {self.elo1!r} instead."
            )

    @classmethod
    def parse(cls, text: str) -> SPRT:
        """``"elo0=0,elo1=10[,alpha=0.05,beta=0.05]"`` as an SPRT."""
        options: dict[str, float] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, equals, value = item.partition("=")
            key = key.strip()
            if not equals or key not in {"elo0", "elo1", "alpha", "beta"}:
                raise ValueError(
                    f"--sprt takes elo0=..,elo1=..[,alpha=..,beta=..]; {item!r} is not one of "
                    "those."
                )
            if key in options:
                raise ValueError(f"--sprt {text!r} gives {key!r} twice.")
            try:
                options[key] = float(value)
            except ValueError:
                message = f"The {key!r} parameter of SPRT must be a number."
                raise ValueError(f"{message} Got {value.strip()!r} instead.") from None
        missing = [key for key in ("elo0", "elo1") if key not in options]
        if missing:
            raise ValueError(f"--sprt needs {' and '.join(missing)}. Got {text!r} instead.")
        return cls(**options)

    @property
    def lower_bound(self) -> float:
        """Accept H0 when the LLR falls to this."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """Accept H1 when the LLR rises to this."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, frequencies: Sequence[float]) -> float:
        """The log-likelihood ratio for the results so far (0 before any result)."""
        if sum(frequencies) == 0:
            return 0.0
        return log_likelihood_ratio(frequencies, self.elo0, self.elo1)

    def verdict(self, llr: float) -> str | None:
        """``"H1"`` or ``"H0"`` once a bound is reached (the test stops), else None."""
        if llr >= self.upper_bound:
            return "H1"
        if llr <= self.lower_bound:
            return "H0"
        return None

    def describe(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"


def pentanomial(pair_scores: Sequence[float]) -> list[int]:
    """Counts of pairs by their total score 0, 1/2, 1, 3/2, 2 (``LL`` ... ``WW``)."""
    counts = [0] * 5
    for total in pair_scores:
        index = round(total * 2)
        if not 0 <= index <= 4 or index != total * 2:
            raise ValueError(
                f"A pair's score must be one of 0, 0.5, 1, 1.5, 2. Got {total!r} instead."
            )
        counts[index] += 1
    return counts

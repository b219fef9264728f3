"""toolformer_lab: why language models need tools, and how Toolformer teaches one when to call them.

Contents (lecture 001 sections 1-3, handout code 01 and 02; lecture 003 section 2), each chapter
with the script and demo that show it:
  1-3. Tokens, NGramLM and the copy cache                      scripts/01 demos 1-2; scripts/02
     A word tokenizer and `NGramLM`, a word n-gram model of any order with interpolated
     Kneser-Ney smoothing; `CachedLM`, a copy cache mixed in with weight 0.2: the smallest
     stand-in for a transformer copying from its context, so that an API result placed before
     a position can help predict it (content words only; a switch copies punctuation too, the
     pitfall the handout ran into).
  4-7. Toolformer's data-building steps                        scripts/02 demos 1-3
     Schick et al., 2023, "Toolformer: Language Models Can Teach Themselves to Use Tools",
     section 2: candidate calls, execution through a tool_core.ToolRegistry, the weighted-loss
     filter L- - L+ >= tau_f (the worked numbers first); then step 4, retraining on the
     augmented text and measuring where the model now writes "["; at inference
     (`decode_with_tools`, demo 5) the harness runs each call the model writes at "->".
  8. ToolkenGPT's training target                              scripts/02 demos 4-5
     Hao et al., 2023: a toolken at the first result token, the other result tokens marked
     [N/A] and left out of the loss; at inference (`tool_mode`, demo 5) a predicted toolken
     switches to a prompt with the tool's demonstration, and its result fills those places.
  9-10. The demos behind scripts/01_why_tools.py and scripts/02_toolformer.py; in 9, lecture 000's four
     families of tools, one lab tool each (caption_image, a picture in and words out, stands in for a
     vision model); in 10, demo 6: the filter with models that can use a result less.
  11-16. Constrained decoding                                  scripts/08 demos 1-6
     A byte-pair vocabulary learned from the lab's text and calls, one n-gram per tool writing
     call arguments, the integer regex as a finite automaton (demo 2), a JSON Schema as a
     deterministic pushdown automaton (`schema_automaton`, demo 3), token masks computed three
     ways (every token, a prefix tree, precomputed per state as XGrammar does; demos 4-5),
     masked sampling, and what masking does not give (Grammar-Aligned Decoding's distortion,
     demo 6). Section 11 says what the chapter follows and leaves out.
  17. The demos behind scripts/08_constrained_decoding.py.

What it leaves out: the paper samples candidate positions and calls from the model itself
(p_i > tau_s with a few-shot prompt); we generate them with rules. The paper fine-tunes GPT-J,
which reads the arguments from its context at inference; our retrained trigram learns where to
call and which tool, but writes arguments from memory (demo 5), and it opens a call only when
"[" is its argmax (the paper: among the 10 likeliest). ToolkenGPT's tool mode fills arguments
by in-context learning; a copy rule (`fill_arguments`) stands in. Search and translation tools
are left out; our corpus needs a calculator, a question-answering tool over a small knowledge
base, and a calendar.
"""
from __future__ import annotations

import base64
import dataclasses
import functools
import itertools
import json
import math
import random
import re
import struct
import time
import typing
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from fractions import Fraction

import tool_core
from tool_core import HandoutFigure

# ---------------------------------------------------------------------------------------------
# --- 1. Tokens ---
# ---------------------------------------------------------------------------------------------

BOS, EOS, UNK = "<s>", "</s>", "<unk>"
_TOKEN = re.compile(r"->|\d+(?:\.\d+)?|[^\W\d_]+(?:'[^\W\d_]+)?|\S")


def tokenize(text: str) -> list[str]:
    """Split text into words (any letters, with one apostrophe: "it's"), numbers (3.14 whole),
    "->" and single other characters; a minus sign is its own token, as in "-", "35".

    Example: "capacity is 205 megawatts." -> ['capacity', 'is', '205', 'megawatts', '.']
    """
    return _TOKEN.findall(text)


def detokenize(tokens: list[str]) -> str:
    """Join tokens back into readable text. Example: ['SS', '-', '218', 'is', '205', '.'] -> 'SS-218 is 205.'"""
    text = " ".join(tokens)
    text = re.sub(r" ([.,?!:;)\]])", r"\1", text)
    text = re.sub(r"([(\[]) ", r"\1", text)
    text = re.sub(r"\b([A-Z]+) - (\d)", r"\1-\2", text)  # ids such as SS-218
    text = re.sub(r'" (.*?) "', r'"\1"', text)  # quoted arguments
    return re.sub(r"\b([A-Z][A-Za-z]*) \(", r"\1(", text)  # calls such as Calculator(...)


# Function words and marks the copy cache never copies: copying them "helps" every sentence.
STOP_WORDS = frozenset("""a an the of and or but to in on at by for with from into as is are was were be been
being has have had do does did so its it this that these those there here who what when where which
will would can could may might must shall should not no than then also all any each per up out""".split())


@functools.lru_cache(maxsize=None)
def is_content_word(token: str) -> bool:
    """Say whether the cache may copy a token: a word or number that is not a stop word."""
    return any(ch.isalnum() for ch in token) and token.lower() not in STOP_WORDS


# ---------------------------------------------------------------------------------------------
# --- 2. The n-gram language model: interpolated Kneser-Ney ---
# ---------------------------------------------------------------------------------------------

_MANY_FOLLOWERS = 64  # past this many followers, rank the bigram once rather than score each follower


class NGramLM:
    """A word n-gram model with interpolated Kneser-Ney smoothing (Chen & Goodman, 1998, section 3).

    Why Kneser-Ney: it interpolates every order with the next lower one, so each conditional
    distribution sums to exactly 1, and its lower orders use continuation counts (in how many
    contexts a word appears), which predicts unseen histories better than raw frequency.
    Absolute discounting with back-off would also sum to 1, but needs back-off weights
    computed per context; interpolation makes the recursion one line.

        P_k(w | h) = max(c_k(h w) - D, 0) / c_k(h) + D * N1+(h .) / c_k(h) * P_{k-1}(w | h')

    c_k is the raw count at the highest order and the continuation count below it (in how many
    distinct contexts v h w appears), c_k(h) = sum over w of c_k(h w), and N1+(h .) the number
    of distinct words after h; h' drops the oldest word of h; an unseen history (c_k(h) = 0)
    passes straight to the lower order. A history shorter than order - 1 words is padded with
    <s>, as every training sentence is. The recursion ends in the uniform distribution over
    the training vocabulary (with </s>).

    Words never seen in training share one unknown-word mass, after Good-Turing's estimate of
    how often a new word turns up: P(<unk>) = max(words seen once, 1) / (all words + 1), the
    max and +1 keeping it above 0 and below 1. It does not depend on the history, and every
    known word's probability is scaled by 1 - P(<unk>), so the distribution over the
    vocabulary plus <unk> sums to 1.
    subtle: a history-dependent unknown mass would make any unseen history (text right after
    an inserted "[call]") look better at predicting unseen words such as "205", and the
    Toolformer filter would credit the brackets instead of the result.
    """

    def __init__(self, order: int = 3, discount: float = 0.75):
        if order < 1 or not 0 < discount < 1:
            raise ValueError(f"need order >= 1 and 0 < discount < 1, got order={order}, discount={discount}")
        self.order, self.discount = order, discount
        self.counts: list[Counter] = [Counter() for _ in range(order + 1)]  # [k][(h..., w)]
        self.context_total: list[Counter] = [Counter() for _ in range(order + 1)]  # [k][h]: sum over w
        self.context_types: list[Counter] = [Counter() for _ in range(order + 1)]  # [k][h]: N1+(h .)
        self.vocab: list[str] = []
        self._index: set[str] = set()
        self.followers: list[dict[tuple, list[str]]] = [{} for _ in range(order + 1)]
        self._cache: dict[tuple, float] = {}  # (word, history) -> probability; the model is fixed after fit
        self._rankings: dict[tuple, list[str]] = {}
        self.p_unk = 0.0

    def __repr__(self) -> str:
        """Say the knobs and what the model learned: vocabulary size, distinct n-grams, P(<unk>)."""
        if not self.vocab:
            return f"NGramLM(order={self.order}, discount={self.discount}, not fitted yet)"
        return (f"NGramLM(order={self.order}, discount={self.discount}, vocabulary {len(self.vocab):,} words "
                f"with </s> and <unk>, {len(self.counts[self.order]):,} distinct {self.order}-grams, "
                f"P(<unk>) = {self.p_unk:.3g})")

    def fit(self, sentences: list[list[str]]) -> "NGramLM":
        """Count every n-gram of the sentences (each padded with <s> ... </s>); return self.

        Fitting again starts from scratch: the model is what the last sentences make of it.
        """
        if not any(sentences):
            raise ValueError("fit needs at least one sentence with a word in it")
        n = self.order
        self.context_total = [Counter() for _ in range(n + 1)]
        self.context_types = [Counter() for _ in range(n + 1)]
        top = Counter()
        for sentence in sentences:
            padded = [BOS] * (n - 1) + list(sentence) + [EOS]
            for j in range(n - 1, len(padded)):
                top[tuple(padded[j - n + 1: j + 1])] += 1
        self.counts[n] = top
        for k in range(n - 1, 0, -1):  # continuation counts: in how many contexts (v h w) appears
            self.counts[k] = Counter(gram[1:] for gram in self.counts[k + 1])
        self.followers: list[dict[tuple, list[str]]] = [defaultdict(list) for _ in range(n + 1)]
        for k in range(1, n + 1):
            for gram, c in self.counts[k].items():
                self.context_total[k][gram[:-1]] += c
                self.context_types[k][gram[:-1]] += 1
                self.followers[k][gram[:-1]].append(gram[-1])
        words = Counter(w for s in sentences for w in s)
        self.p_unk = max(sum(1 for c in words.values() if c == 1), 1) / (sum(words.values()) + 1)
        self.vocab = sorted(set(words) | {EOS, UNK})
        self._index, self._cache, self._rankings = set(self.vocab), {}, {}
        return self

    def prob(self, word: str, context: tuple[str, ...] | list[str]) -> float:
        """Return P(word | the last order-1 words of context); an unseen word gets P(<unk>)."""
        h = tuple(context)[-(self.order - 1):] if self.order > 1 else ()
        h = (BOS,) * (self.order - 1 - len(h)) + h
        if word not in self._index or word == UNK:
            return self.p_unk
        key = (word, h)
        if key not in self._cache:
            self._cache[key] = (1 - self.p_unk) * self._p(self.order, word, h)
        return self._cache[key]

    def _p(self, k: int, word: str, h: tuple[str, ...]) -> float:
        if k == 0:
            return 1.0 / (len(self.vocab) - 1)  # uniform over the known words and </s>
        total = self.context_total[k][h]
        lower = self._p(k - 1, word, h[1:])
        if total == 0:
            return lower
        c = self.counts[k][h + (word,)]
        return max(c - self.discount, 0) / total + self.discount * self.context_types[k][h] / total * lower

    def knows(self, word: str) -> bool:
        """Say whether the word was seen in training (else it gets the unknown-word mass)."""
        return word in self._index and word != UNK

    def distribution(self, context: tuple[str, ...] | list[str]) -> dict[str, float]:
        """Return P(w | context) for every w in the vocabulary (it sums to 1)."""
        return {w: self.prob(w, context) for w in self.vocab}

    def logprob(self, tokens: list[str], context: list[str] = ()) -> float:
        """Return the natural-log probability of tokens following context."""
        seen = list(context)
        total = 0.0
        for token in tokens:
            total += math.log(self.prob(token, seen))
            seen.append(token)
        return total

    def most_likely(self, context: tuple[str, ...] | list[str], exclude: frozenset[str] = frozenset()) -> str:
        """Return the most probable next word not in `exclude` (never <unk>; ties go to the later word in sort order).

        Exact without scoring the whole vocabulary each time: above some order `low`, only words
        that followed the history get a term of their own; every other word's probability is the
        order-`low` distribution scaled by the back-off weights, so the best of those is the first,
        in that distribution's (cached) ranking, that is not among the followers. `low` is the
        unigram, or the bigram when the last word had many followers ("is" before 900 products).
        """
        h = tuple(context)[-(self.order - 1):] if self.order > 1 else ()
        h = (BOS,) * (self.order - 1 - len(h)) + h
        low = 2 if self.order > 1 and len(self.followers[2].get(h[-1:], ())) > _MANY_FOLLOWERS else 1
        followers = {w for k in range(self.order, low, -1) for w in self.followers[k].get(h[len(h) - k + 1:], ())}
        ranked = self._ranked(low, h[len(h) - low + 1:])
        outside = next((w for w in ranked if w not in followers and w not in exclude), None)
        options = [w for w in followers | {outside} if w is not None and w != UNK and w not in exclude]
        return max(options, key=lambda w: (self.prob(w, context), w))

    def _ranked(self, k: int, hk: tuple[str, ...]) -> list[str]:
        """Return the known words sorted by P_k(w | hk), best first (cached per history)."""
        if (k, hk) not in self._rankings:
            p = {w: self._p(k, w, hk) for w in self.vocab if w != UNK}
            self._rankings[(k, hk)] = sorted(p, key=lambda w: (p[w], w), reverse=True)
        return self._rankings[(k, hk)]

    def generate(self, context: list[str], max_tokens: int = 10, stop: tuple[str, ...] = (EOS,)) -> list[str]:
        """Continue context greedily (most probable word each step, ties by alphabet); never writes <unk>."""
        seen, out = list(context), []
        for _ in range(max_tokens):
            word = self.most_likely(seen)
            if word in stop:
                break
            out.append(word)
            seen.append(word)
        return out


# ---------------------------------------------------------------------------------------------
# --- 3. The copy cache: the smallest stand-in for attention ---
# ---------------------------------------------------------------------------------------------

class CachedLM:
    """Mix an n-gram model with a copy cache over the words already in the context.

        P(w | context) = (1 - weight) * P_ngram(w | last words) + weight * count(w in cache) / len(cache)

    The cache holds the context's content words (is_content_word), so an API result placed
    earlier in the text, "205" or "Tove Belwick", can be copied when it comes up again. With
    content_only=False it copies every token, punctuation included: then a calendar result
    "Thursday, October 15, 2026" raises P(",") everywhere and the Toolformer filter mistakes
    that for usefulness (the pitfall of handout section 3.6). An empty cache mixes in nothing.

    subtle: the n-gram model knows only that *some* unseen word comes next (P(<unk>)). Its
    unknown mass is shared equally by the unseen words the context offers and one <unk> slot
    for every other unseen word, so prob() and distribution() agree and the sum stays 1.
    """

    def __init__(self, lm: NGramLM, weight: float = 0.2, content_only: bool = True):
        self.lm, self.weight, self.content_only = lm, weight, content_only

    def cache(self, context: list[str]) -> Counter:
        """Return the tokens the cache may copy from this context, with their counts."""
        return Counter(t for t in context if not self.content_only or is_content_word(t))

    def mixture(self, context: list[str], cache: Counter | None = None) -> "Mixture":
        """Return how this context mixes the two parts: the cache, the n-gram weight, each unseen word's share."""
        cache = self.cache(context) if cache is None else cache
        unseen = sum(1 for w in cache if not self.lm.knows(w))
        return Mixture(cache, 1 - self.weight if cache else 1.0, self.lm.p_unk / (unseen + 1))

    def prob(self, word: str, context: list[str], cache: Counter | None = None) -> float:
        """Return the mixed probability of word after context (cache: self.cache(context), if already counted)."""
        m = self.mixture(context, cache)
        p_ngram = self.lm.prob(word, context) if self.lm.knows(word) else m.unseen_share
        return m.ngram_weight * p_ngram + (self.weight * m.cache[word] / sum(m.cache.values()) if m.cache else 0.0)

    def distribution(self, context: list[str]) -> dict[str, float]:
        """Return the mixture over the vocabulary, <unk> and the unseen words the cache can copy (sums to 1)."""
        m = self.mixture(context)
        dist = {w: m.ngram_weight * p for w, p in self.lm.distribution(context).items()}
        dist[UNK] = m.ngram_weight * m.unseen_share
        for w, c in m.cache.items():
            base = dist.get(w, m.ngram_weight * m.unseen_share)
            dist[w] = base + self.weight * c / sum(m.cache.values())
        return dist


class Mixture(typing.NamedTuple):
    """How CachedLM mixes its two parts after one context."""

    cache: Counter  # the tokens the context offers for copying, with their counts
    ngram_weight: float  # 1 - weight when the cache has something to copy, else 1
    unseen_share: float  # the n-gram probability of each unseen word: P(<unk>) / (unseen cache words + 1)


# ---------------------------------------------------------------------------------------------
# --- 4. Toolformer step 3: the weighted loss and the usefulness filter ---
# ---------------------------------------------------------------------------------------------

def toolformer_weights(span: int = 5, decay: float = 0.2) -> list[float]:
    """Return w_t = w~_t / sum(w~), w~_t = max(0, 1 - decay * t), for t = 0 .. span-1 (paper section 2).

    Example: toolformer_weights() -> [1/3, 4/15, 1/5, 2/15, 1/15]
    """
    raw = [max(0.0, 1 - decay * t) for t in range(span)]
    return [w / sum(raw) for w in raw]


WEIGHTS = toolformer_weights()


def weighted_loss(model: CachedLM | NGramLM, tokens: list[str], i: int, prefix: list[str] = ()) -> float:
    """Return L_i(z) = -sum_j w_{j-i} * log p(x_j | x_{1:i-1}, z, x_{i:j-1}), z = prefix.

    The paper puts z in front of the whole text; an n-gram model (even with the cache) would
    then never see it, so z goes right before x_i, where the augmented training text puts the
    call. Weights past the end of the text are simply absent (the sum is not renormalised).
    """
    if not 0 <= i < len(tokens):
        raise ValueError(f"position {i} is outside the text (0 to {len(tokens) - 1})")
    context = list(tokens[:i]) + list(prefix)
    cache = model.cache(context) if isinstance(model, CachedLM) else None  # kept up to date, not recounted
    loss = 0.0
    for t, w in enumerate(WEIGHTS):
        if i + t >= len(tokens):
            break  # near the end of the text the missing weights are simply absent
        word = tokens[i + t]
        loss -= w * math.log(model.prob(word, context, cache) if cache is not None else model.prob(word, context))
        context.append(word)
        if cache is not None:
            cache.update(model.cache([word]))
    return loss


def usefulness(L_empty: float, L_call: float, L_result: float, *, with_call_alone: bool = True) -> float:
    """Return L- - L+, with L+ = L(e(c, r)) and L- = min(L(eps), L(e(c, eps))) (paper eq. 2).

    with_call_alone=False uses L- = L(eps) alone, which credits the call for what merely
    writing the question does. Example: usefulness(2.5, 2.1, 0.8) -> 1.3
    """
    L_minus = min(L_empty, L_call) if with_call_alone else L_empty
    return L_minus - L_result


def call_tokens(call: str, result: str | None) -> list[str]:
    """Write e(c, r) = "[call -> r]", or e(c, eps) = "[call ->]" when result is None, as tokens."""
    return tokenize(f"[{call} ->" + (f" {result}]" if result is not None else "]"))


# ---------------------------------------------------------------------------------------------
# --- 5. The corpora: course announcements, and texts whose continuation needs a tool ---
# ---------------------------------------------------------------------------------------------

TODAY = "Thursday, October 15, 2026"  # the calendar's fixed "today"

_ANNOUNCEMENTS = [
    "The lecture on {day} is in room {room}.", "Homework {n} is due on {day} at 5 pm.",
    "Office hours move to {day} this week.", "The midterm covers lectures 1 to {n}.",
    "Please bring your laptop to the lab on {day}.", "The reading for {day} is chapter {n} of the notes.",
    "Section {n} meets in room {room} on {day}.", "The project proposal is due on {day} so plan ahead.",
    "Slides for lecture {n} are posted on the course page.", "The guest talk on {day} starts at 3 pm.",
    "Quiz {n} opens on {day} and closes on Sunday.", "The course staff will answer questions on the forum.",
    "Late days may be used for homework {n} but not for the project.",
    "The lab session on {day} covers n-gram language models.", "Grades for homework {n} are out.",
    "Please check the schedule and the forum before asking.",
    "The final project has three parts so start early.", "Room {room} is closed on {day} so we meet online.",
    "The teaching assistants hold a review session on {day}.", "Bring questions about homework {n} to section.",
    "The exam is open book but no laptops are allowed.", "Each team has three or four students.",
    "The course page lists the readings and the slides and the deadlines.",
    "Today is {day} and the lecture is in room {room}.", "Today is {day} so office hours are online.",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]


def announcement_corpus() -> list[list[str]]:
    """Return the background training text: course announcements, no grid facts, no answers."""
    out = []
    for k, template in enumerate(_ANNOUNCEMENTS):
        for v in range(6):
            out.append(tokenize(template.format(day=_DAYS[(k + v) % 5], room=200 + 10 * ((k * 3 + v) % 9), n=1 + (k + v) % 8)))
    return out


@dataclass
class VendorFact:
    """One row of the QA tool's knowledge base."""

    vendor: str
    founder: str
    city: str


_VENDORS = ("Ashholt Brennick Calloway Dunmere Everly Fenwright Galbrook Harrowgate Islemoor Jessop Kilbride "
            "Larchfield Mornay Netherby Ostrander Pellham Quarrington Rookwood Saltash Tremayne Ulverston "
            "Vantry Wexcombe Yardley Zellick Amberlow Brightwell Coldharbour Draycott Elmsworth "
            "Farrowby Glenmoor Hartwell Ivybridge Juniper Kestrel Lowther Marlow Norcott Oakhurst").split()
_FIRSTS = "Tove Ilse Bram Odile Kasper Maren Ruben Signe Tomas Elin Aster Jorun Lasse Petra Emil".split()
_LASTS = "Belwick Farrow Quill Dunmore Halvard Ostby Renner Skarde Thune Vikram Aldis Brevik Corran".split()
_CITIES = "Marrow Bay,Easton,Hollin,Westmarch,Ravensfield,Dunholm,Kingsreach".split(",")


def vendor_facts() -> list[VendorFact]:
    """Return the question-answering tool's knowledge base: 40 vendors, their founders and cities."""
    facts = [VendorFact("Ashholt", "Tove Belwick", "Marrow Bay")]
    for k, vendor in enumerate(_VENDORS[1:], 1):
        facts.append(VendorFact(vendor, f"{_FIRSTS[k % 15]} {_LASTS[(k * 5) % 13]}", _CITIES[k % 7]))
    return facts


@dataclass
class Text:
    """One text to annotate: its tokens, what kind it is, and where a call is needed (if anywhere)."""

    tokens: list[str]
    kind: str  # capacity | faults | vendor | date | plain
    call_positions: tuple[int, ...]  # a call helps right before any one of these tokens; () for none
    fact: dict  # what the rules need to write candidate calls: numbers, a vendor

    @property
    def call_position(self) -> int | None:
        """Return the first position where a call helps (where the rules write their candidates), or None."""
        return self.call_positions[0] if self.call_positions else None


def needs_call(text: Text, position: int) -> bool:
    """Say whether a call right before tokens[position] is one the text needs: the one definition used
    for labelling candidates (gold), for choosing calls to insert, and for testing the retrained model.

    A date needs the calendar before "Thursday" (the whole date follows) or before "October" (the
    rest of it follows): both results say what the text says next, so both places count.
    Example: for "Today is Thursday , October 15 , 2026 ...", positions 2 and 4 -> True, 3 -> False
    """
    return position in text.call_positions


_PLAIN = [
    "The crews will be back at the depot by noon.", "The crew checked poles, lines, meters, and fuses.",
    "A storm is expected, so the crews stay on call.", "Trucks, ladders, and radios are checked each morning.",
    "The control room logs every switch, every alarm, and every call.", "New meters were installed on Elm Street.",
    "The depot gate is locked after dark.", "The feeder was inspected, cleaned, and tested.",
    "Customers can report outages by phone, by text, or online.", "The substation fence needs new signs.",
    "Line workers wear gloves, helmets, and boots.", "The map shows feeders, substations, and depots.",
    "The training covers safety, switching, and first aid.", "A new crew joins the north depot.",
    "The report lists causes, durations, and repairs.", "Tree trimming continues along the river road.",
    "The old transformer was replaced last spring.", "Radios, phones, and pagers are tested weekly.",
    "The safety meeting is short, so be on time.", "Spare fuses are kept in the blue cabinet.",
    "The crew lead signs every work order.", "Outage maps are updated, checked, and published.",
    "The west feeder serves farms, shops, and a school.", "Workers must log in, check out, and log out.",
    "Storm kits hold lamps, batteries, and water.", "The inspection found rust, loose bolts, and a cracked insulator.",
    "Meter readers visit homes, shops, and offices.", "The dispatcher assigns crews by distance.",
    "The north line was rebuilt after the flood.", "Crews rest, eat, and sleep at the depot during storms.",
    "The warehouse stocks cable, poles, and clamps.", "A drone survey checks towers, spans, and vegetation.",
    "The hotline is staffed day and night.", "Vans, trucks, and trailers are parked in rows.",
    "The switching plan was reviewed twice.", "Apprentices learn climbing, rigging, and testing.",
    "The east depot has a new roof.", "Crews photograph damage, record it, and report it.",
    "The substation alarm was a false one.", "Helmets, harnesses, and ropes are inspected monthly.",
]
_DATE_TEMPLATES = [
    "Today is {d}, and the crews are out.", "The audit of the feeders starts today, {d}.",
    "Today, {d}, the office closes early.", "The new meters go live today, {d}, at noon.",
    "Today is {d}, so the depot runs a drill.",
]
# Held out from training, for step 4's test: new sentences, new date sentences, new vendors.
_PLAIN_HELD_OUT = [
    "The crew replaced two poles on the hill road.", "Radios, lamps, and ropes are stored in the van.",
    "The new depot opens next spring.", "Customers asked about trees, fences, and meters.",
    "The training room seats twenty people.", "Storm drills run twice a year.",
    "The north crew fixed a broken insulator.", "Maps, manuals, and forms are on the shelf.",
    "The control room was quiet all night.", "Linemen check harnesses, hooks, and gloves.",
    "The old feeder will be retired.", "A squirrel caused the short outage.",
    "The warehouse got new shelves, bins, and labels.", "Every truck carries a first aid kit.",
    "The survey found loose wires, rusty bolts, and worn poles.",
]
_DATE_HELD_OUT = [
    "The report was filed today, {d}.", "Crews were called out today, {d}, after the storm.",
    "Today is {d}, and the hotline is busy.", "The depot reopens today, {d}, at 7 am.",
    "Billing runs today, {d}, as planned.",
]
TRAIN_SIZES = {"capacity": 15, "faults": 20, "vendor": 30, "date": 15, "plain": 40}
TEST_SIZES = {"capacity": 10, "faults": 10, "vendor": 10, "date": 15, "plain": 15}


def toolformer_texts(seed: int = 0, held_out: bool = False) -> list[Text]:
    """Generate the texts Toolformer annotates: each kind's continuation needs a different tool (or none).

    capacity and faults need a calculator (one-token results), vendor needs question answering
    (two-token names), date needs the calendar, plain needs nothing. Numbers and the order of
    the plain sentences come from random.Random(seed). The training texts (held_out=False) start
    with the handout's two sentences, 120 + 85 = 205 megawatts and Ashholt's founder; the
    held-out texts use other numbers, vendors, date sentences and plain sentences.
    """
    rng = random.Random(seed)
    sizes = TEST_SIZES if held_out else TRAIN_SIZES
    vendors = vendor_facts()[30:] if held_out else vendor_facts()[:30]
    dates, plain = (_DATE_HELD_OUT, list(_PLAIN_HELD_OUT)) if held_out else (_DATE_TEMPLATES, list(_PLAIN))
    texts: list[Text] = []
    for k in range(sizes["capacity"]):
        a, b = (120, 85) if k == 0 and not held_out else (rng.randrange(40, 160), rng.randrange(20, 120))
        station = 218 if k == 0 and not held_out else rng.randrange(100, 400)
        tokens = tokenize(f"Substation SS-{station} has two transformers of {a} and {b} megawatts, "
                          f"so its capacity is {a + b} megawatts.")
        texts.append(Text(tokens, "capacity", (tokens.index(str(a + b), tokens.index("capacity")),), {"a": a, "b": b}))
    for _ in range(sizes["faults"]):
        a, b = rng.randrange(3, 30), rng.randrange(3, 30)
        tokens = tokenize(f"The crew logged {a} faults on Monday and {b} on Tuesday, so {a + b} faults were logged in all.")
        texts.append(Text(tokens, "faults", (tokens.index("so") + 1,), {"a": a, "b": b}))
    for fact in vendors[: sizes["vendor"]]:
        tokens = tokenize(f"The vendor {fact.vendor} was founded by {fact.founder}.")
        texts.append(Text(tokens, "vendor", (tokens.index("by") + 1,), {"vendor": fact.vendor}))
    for k in range(sizes["date"]):
        tokens = tokenize(dates[k % len(dates)].format(d=TODAY))
        texts.append(Text(tokens, "date", (tokens.index("Thursday"), tokens.index("October")), {}))
    rng.shuffle(plain)
    texts += [Text(tokenize(t), "plain", (), {}) for t in plain[: sizes["plain"]]]
    return texts


# ---------------------------------------------------------------------------------------------
# --- 6. The tools, and Toolformer steps 1 and 2: candidate calls, executed ---
# ---------------------------------------------------------------------------------------------

def toolformer_registry() -> tool_core.ToolRegistry:
    """Build the three tools of our corpus as a tool_core registry: Calculator, QA, Calendar."""
    registry = tool_core.ToolRegistry()
    facts = {f.vendor: f for f in vendor_facts()}

    @registry.tool(name="Calculator", read_only=True)
    def calculator(expression: str) -> int | float:
        """Evaluate arithmetic: numbers, + - * / // % ** and parentheses (× and ÷ are read as * and /).

        Args:
            expression: e.g. "120 + 85"
        """
        return tool_core.calculate(expression)

    @registry.tool(name="QA", read_only=True)
    def qa(question: str) -> str:
        """Answer a question about a vendor: who founded it, or where it is based.

        Args:
            question: "Who founded X?" or "Where is X based?"
        """
        asked = re.fullmatch(r"(Who founded|Where is) (\w+)( based)?\?", question.strip())
        if not asked or asked.group(2) not in facts:
            raise LookupError(f"no answer for {question!r}")
        fact = facts[asked.group(2)]
        return fact.founder if asked.group(1) == "Who founded" else fact.city

    @registry.tool(name="Calendar", read_only=True)
    def calendar() -> str:
        """Return today's date."""
        return TODAY

    return registry


@dataclass
class Candidate:
    """One candidate call at one position of one text, with its result and three losses."""

    text: int  # index into the texts
    position: int  # the call goes right before tokens[position]
    tool: str
    arguments: dict
    gold: bool  # the label: the text's own call (right tool and arguments) at a place where needs_call
    result: str | None = None
    L_empty: float = math.nan  # L(eps): no call
    L_call: float = math.nan  # L(e(c, eps)): the call without its result
    L_result: float = math.nan  # L(e(c, r)): the call and its result

    @property
    def call(self) -> str:
        """Write the call as it appears in the text. Example: 'Calculator(120 + 85)'"""
        inside = ", ".join(f'"{v}"' if self.tool == "QA" else str(v) for v in self.arguments.values())
        return f"{self.tool}({inside})"

    @property
    def gain(self) -> float:
        """Return the usefulness L- - L+."""
        return usefulness(self.L_empty, self.L_call, self.L_result)


def candidate_calls(texts: list[Text], seed: int = 0) -> list[Candidate]:
    """Step 1 by rules: several calls per plausible position, wrong ones and everywhere-calendar ones.

    The paper samples positions (where P("[") > tau_s) and calls from the model with a few-shot
    prompt; rules make the same kind of mixture reproducibly: the right call, plausible wrong
    ones at the same position, and Calendar() tried at positions where nothing needs it. A
    candidate is gold when it is the text's own call at a position where needs_call says a
    call is needed; the pipeline never reads the label, the demos grade with it.
    """
    rng = random.Random(seed)
    out = []
    for n, text in enumerate(texts):
        i = text.call_position
        tried: list[tuple[int, str, dict, bool]] = []  # (position, tool, arguments, is the text's own call)
        if text.kind in ("capacity", "faults"):
            a, b = text.fact["a"], text.fact["b"]
            tried += [(i, "Calculator", {"expression": f"{a} + {b}"}, True),
                      (i, "Calculator", {"expression": f"{a} * {b}"}, False),
                      (i, "Calculator", {"expression": f"{b} - {a}"}, False)]
        elif text.kind == "vendor":
            vendor = text.fact["vendor"]
            tried += [(i, "QA", {"question": f"Who founded {vendor}?"}, True),
                      (i, "QA", {"question": f"Where is {vendor} based?"}, False)]
        elif text.kind == "date":
            tried += [(p, "Calendar", {}, True) for p in text.call_positions]
        if text.kind in ("capacity", "faults", "vendor"):
            tried.append((i, "Calendar", {}, False))  # an unrelated call where a call does belong
        # Calendar() within five tokens of the date would be useful there too: keep those out of "elsewhere"
        taken = set(range(i - 4, text.tokens.index("2026") + 1)) if text.kind == "date" else set(text.call_positions)
        elsewhere = [p for p in range(1, len(text.tokens) - 1) if p not in taken]
        tried += [(p, "Calendar", {}, False) for p in sorted(rng.sample(elsewhere, 2 if text.kind == "plain" else 1))]
        out += [Candidate(n, p, tool, args, own and needs_call(text, p)) for p, tool, args, own in tried]
    return out


def execute_candidates(candidates: list[Candidate], registry: tool_core.ToolRegistry) -> None:
    """Step 2: run every candidate through the registry and store its result text."""
    for c in candidates:
        outcome = registry.call(c.tool, c.arguments)
        c.result = outcome.text if outcome.ok else f"error: {outcome.error_kind}"


def score_candidates(candidates: list[Candidate], texts: list[Text], model: CachedLM | NGramLM) -> None:
    """Step 3: compute L(eps), L(e(c, eps)) and L(e(c, r)) for every candidate."""
    empty: dict[tuple[int, int], float] = {}
    for c in candidates:
        tokens = texts[c.text].tokens
        key = (c.text, c.position)
        if key not in empty:
            empty[key] = weighted_loss(model, tokens, c.position)
        c.L_empty = empty[key]
        c.L_call = weighted_loss(model, tokens, c.position, call_tokens(c.call, None))
        c.L_result = weighted_loss(model, tokens, c.position, call_tokens(c.call, c.result))


def keep(candidates: list[Candidate], tau: float | None) -> list[Candidate]:
    """Return the candidates with L- - L+ >= tau (all of them when tau is None: no filter)."""
    return [c for c in candidates if tau is None or c.gain >= tau]


def best_calls(candidates: list[Candidate], tau: float | None) -> dict[int, Candidate]:
    """Pick, per text, the kept call with the largest gain: the one step 4 inserts (tau None: no filter)."""
    best: dict[int, Candidate] = {}
    for c in keep(candidates, tau):
        if c.text not in best or c.gain > best[c.text].gain:
            best[c.text] = c
    return best


@dataclass
class ToolformerRun:
    """Everything steps 1-3 produce, computed once and shared by the demos."""

    lm: NGramLM
    texts: list[Text]
    candidates: list[Candidate]
    seed: int
    content_only: bool
    unfiltered: "Retrained | None" = field(default=None, repr=False, compare=False)  # step 4 with no filter: one per run


def toolformer_pipeline(seed: int = 0, content_only: bool = True) -> ToolformerRun:
    """Train the background model, then run steps 1-3 on the corpus: candidates, execute, score."""
    lm = NGramLM(order=3).fit(announcement_corpus())
    texts = toolformer_texts(seed)
    candidates = candidate_calls(texts, seed)
    execute_candidates(candidates, toolformer_registry())
    score_candidates(candidates, texts, CachedLM(lm, content_only=content_only))
    return ToolformerRun(lm, texts, candidates, seed, content_only)


# ---------------------------------------------------------------------------------------------
# --- 7. Toolformer step 4: insert the kept calls, retrain, and see where the model calls ---
# ---------------------------------------------------------------------------------------------

def augment(texts: list[Text], chosen: dict[int, Candidate]) -> list[list[str]]:
    """Return x* = x_{1:i-1}, e(c, r), x_{i:n} for every text with a kept call (the rest unchanged)."""
    out = []
    for n, text in enumerate(texts):
        c = chosen.get(n)
        out.append(text.tokens if c is None else
                   text.tokens[: c.position] + call_tokens(c.call, c.result) + text.tokens[c.position:])
    return out


@dataclass
class CallSite:
    """One position of a test text: how likely the model is to open a call there, and whether it would."""

    text: int
    position: int
    p_open: float  # P("[" | the two words before)
    writes_call: bool  # is "[" the most likely next token (greedy decoding opens a call)?
    needs_call: bool
    likeliest: str = ""  # the token greedy decoding writes here
    p_likeliest: float = 0.0


def call_sites(lm: NGramLM, texts: list[Text]) -> list[CallSite]:
    """Measure P("[") before every token of every test text, and where greedy decoding would call."""
    sites = []
    for n, text in enumerate(texts):
        for p in range(1, len(text.tokens)):
            context = text.tokens[:p]
            best = lm.most_likely(context)
            sites.append(CallSite(n, p, lm.prob("[", context), best == "[", needs_call(text, p), best,
                                  lm.prob(best, context)))
    return sites


def call_contexts(trained_on: list[list[str]]) -> set[tuple[str, str]]:
    """Return every pair of words that came right before a "[" in the training text."""
    return {tuple(s[j - 2: j]) for s in trained_on for j in range(2, len(s)) if s[j] == "["}


def explain_wrong_call(site: CallSite, sites: list[CallSite], texts: list[Text],
                       before_calls: set[tuple[str, str]]) -> str:
    """Say why greedy decoding opens a call where none is needed, or none where one is."""
    text = texts[site.text]
    two = "'" + " ".join(text.tokens[site.position - 2: site.position]) + "'"
    if site.needs_call:
        later = [s for s in sites if s.text == site.text and s.writes_call and 0 < s.position - site.position <= 2]
        if later:
            after = " ".join(text.tokens[later[0].position - 2: later[0].position])
            return (f"it calls {later[0].position - site.position} tokens later instead, after '{after}', "
                    "where the kept calls stood in training")
        if not before_calls:
            return f"no call was kept, so '[' never appears in training: P('[') = {site.p_open:.2f}, the unseen-word share"
        if tuple(text.tokens[site.position - 2: site.position]) in before_calls:
            return (f"{two} came right before a kept call in training, but '{site.likeliest}' is likelier there "
                    f"({site.p_likeliest:.2f} against P('[') = {site.p_open:.2f})")
        return f"{two} never came right before a kept call in training (P('[') = {site.p_open:.2f})"
    if tuple(text.tokens[site.position - 2: site.position]) in before_calls:
        why = f"{two} came right before a kept call in training, and a trigram sees only these two words"
    else:
        why = f"{two} is unseen, and the back-off to its last word favours '['"
    after = [site.position - p for p in text.call_positions if 0 < site.position - p <= 2]
    if after:
        why = f"{min(after)} token(s) after a place that needs a call: {why}"
    return why


@dataclass
class Retrained:
    """Step 4's outcome for one threshold: the calls inserted, the new model, and its call sites."""

    chosen: dict[int, Candidate]
    augmented: list[list[str]]
    lm: NGramLM
    sites: list[CallSite]

    def needed(self) -> dict[int, list[CallSite]]:
        """Return, per test text that needs a call, its sites where needs_call holds."""
        found: dict[int, list[CallSite]] = {}
        for s in self.sites:
            if s.needs_call:
                found.setdefault(s.text, []).append(s)
        return found

    def summary(self) -> "RetrainSummary":
        """Count where the retrained model opens calls: per text that needs one, and everywhere else."""
        needed = self.needed().values()
        rest = [s for s in self.sites if not s.needs_call]
        if not needed or not rest:
            raise ValueError("the test texts need both places that need a call and places that do not")
        return RetrainSummary(p_needed=sum(max(s.p_open for s in sites) for sites in needed) / len(needed),
                              p_elsewhere=sum(s.p_open for s in rest) / len(rest),
                              texts_called=sum(any(s.writes_call for s in sites) for sites in needed),
                              texts_needing=len(needed), calls_elsewhere=sum(s.writes_call for s in rest))


class RetrainSummary(typing.NamedTuple):
    """Where a retrained model opens calls on the test texts (needs_call decides what is needed)."""

    p_needed: float  # mean over the texts that need a call of P('[') at the best of their places
    p_elsewhere: float  # mean P('[') over every other position
    texts_called: int  # texts where greedy decoding opens a call at a place that needs one
    texts_needing: int  # texts that need a call
    calls_elsewhere: int  # positions that need no call where greedy decoding opens one anyway


def retrain(run: ToolformerRun, tau: float | None, tests: list[Text]) -> Retrained:
    """Insert each text's best kept call, retrain a trigram on announcements + augmented texts, test it."""
    chosen = best_calls(run.candidates, tau)
    augmented = augment(run.texts, chosen)
    lm = NGramLM(order=3).fit(announcement_corpus() + augmented)
    return Retrained(chosen, augmented, lm, call_sites(lm, tests))


# At inference: the retrained model decodes, and the harness runs the calls it writes (scripts/02 demo 5)

@dataclass
class DecodedCall:
    """One call opened while decoding: where, what the model wrote, what came back, what the harness wrote."""

    at: int  # index of its "[" in Decoded.tokens
    arrow: int | None  # index of its "->"; None when the text ended inside the call
    written: str  # what the model wrote after "[" (up to "->", or to where the text ended)
    result: tool_core.ToolResult  # the registry's answer; "truncated" when the text ended inside the call
    inserted: list[str] = field(default_factory=list)  # what the harness wrote after "->": the result and "]"


@dataclass
class Decoded:
    """A prompt and what decoding wrote after it: the model's tokens, the harness's inserted among them."""

    prompt: list[str]
    tokens: list[str]
    calls: list[DecodedCall]

    def text(self) -> str:
        """Return the prompt and its continuation as one text."""
        return detokenize(self.prompt + self.tokens)

    def by_harness(self) -> set[int]:
        """Return the indices of self.tokens that the harness wrote (results and "]"), not the model."""
        return {c.arrow + 1 + j for c in self.calls if c.arrow is not None for j in range(len(c.inserted))}

    def after(self, call: DecodedCall) -> list[str]:
        """Return what the model wrote after a call's "]"."""
        return self.tokens[call.arrow + 1 + len(call.inserted):] if call.arrow is not None else []


CALL_MARKS = frozenset({"[", "->", "]"})


def parse_call(written: str, registry: tool_core.ToolRegistry) -> tuple[str, dict] | None:
    """Read a written call back into (tool, arguments), Candidate.call in reverse; None if it is not Tool(...).

    The argument, its quotes dropped, fills the tool's one parameter; a tool the registry does not
    know gets no arguments, and the registry says it is unknown.
    Example: 'Calculator(120 + 85)' -> ('Calculator', {'expression': '120 + 85'})
    """
    shaped = re.fullmatch(r"(\w+)\((.*)\)", written)
    if not shaped:
        return None
    name, inside = shaped.groups()
    tool = registry.get(name)
    slots = list(tool.parameters.get("properties", {})) if tool else []
    inside = inside[1:-1] if len(inside) >= 2 and inside[0] == inside[-1] == '"' else inside
    return name, ({slots[0]: inside} if slots and inside else {})


def call_rank(lm: NGramLM, context: list[str], limit: int = 10) -> int | None:
    """Return where "[" ranks among the next tokens ("->" and "]" left out), 0 for the argmax; None past limit."""
    ranked: list[str] = []
    while len(ranked) < limit:
        ranked.append(lm.most_likely(context, exclude=frozenset(ranked) | {"->", "]"}))
        if ranked[-1] == "[":
            return len(ranked) - 1
    return None


def next_token(lm: NGramLM, context: list[str], in_call: bool, may_call: bool, k: int = 1) -> str:
    """Write the next token: the argmax, under the call syntax.

    Outside a call the model never writes "->" or "]" (they only end a call), and it writes "[" when
    may_call and "[" is among its k likeliest tokens (k = 1: the argmax; the paper uses k = 10).
    Inside a call it writes no second "[" and no "]": closing the call is the harness's job.
    """
    if in_call:
        return lm.most_likely(context, exclude=frozenset({"[", "]"}))
    if may_call and call_rank(lm, context, k) is not None:
        return "["
    return lm.most_likely(context, exclude=CALL_MARKS)


def decode_with_tools(lm: NGramLM, prompt: list[str], registry: tool_core.ToolRegistry, k: int = 1,
                      max_calls: int = 1, max_tokens: int = 30) -> Decoded:
    """Continue prompt greedily; when the model writes "->", run its call and write the result and "]".

    Toolformer at inference (handout 3.5; Schick et al., 2023): the model decodes as usual; at "->"
    the harness stops it, runs the call, writes the result and the closing bracket, and decoding
    goes on with the result in its context. k is the paper's rule for opening a call (next_token);
    at most max_calls calls per text, as the paper allows one. A call that is no Tool(...) gets
    "bad_name" and the harness writes its error kind; a text that ends inside a call leaves the call
    "truncated", never run: each is counted, not dropped.
    """
    out, opened = Decoded(list(prompt), [], []), None
    while len(out.tokens) < max_tokens:
        word = next_token(lm, out.prompt + out.tokens, opened is not None, len(out.calls) < max_calls, k)
        if word == EOS:
            break
        out.tokens.append(word)
        if word == "[":
            opened = len(out.tokens) - 1
        elif word == "->":
            call = run_written_call(out.tokens, opened, registry)
            out.calls.append(call)
            out.tokens += call.inserted
            opened = None
    if opened is not None:
        out.calls.append(DecodedCall(opened, None, detokenize(out.tokens[opened + 1:]), tool_core.ToolResult(
            False, error_kind="truncated", message="the text ended inside the call; nothing ran")))
    return out


def run_written_call(tokens: list[str], opened: int, registry: tool_core.ToolRegistry) -> DecodedCall:
    """Run the call between tokens[opened] ("[") and the last token ("->"); say what the harness writes next."""
    written = detokenize(tokens[opened + 1: -1])
    parsed = parse_call(written, registry)
    result = registry.call(*parsed) if parsed else tool_core.ToolResult(
        False, error_kind="bad_name", message=f"{written!r} is not Tool(argument); nothing ran")
    shown = result.text if result.ok else "error: " + result.error_kind.replace("_", " ")
    return DecodedCall(opened, len(tokens) - 1, written, result, tokenize(shown) + ["]"])


def unwritten(before: list[str], result: list[str]) -> list[str]:
    """Return the part of a result the text has not written yet: less any of its start that ends `before`.

    Example: (['is', 'Thursday', ','], ['Thursday', ',', 'October', '15']) -> ['October', '15']
    """
    done = max(n for n in range(min(len(before), len(result)) + 1) if before[len(before) - n:] == result[:n])
    return result[done:]


def copies_result(before: list[str], result: list[str], after: list[str]) -> bool:
    """Say whether the text after a call (`after`) goes on with the result's unwritten part.

    Example: (['is', 'Thursday', ','], ['Thursday', ',', 'October', '15'], ['October', '15', '.']) -> True
    """
    rest = unwritten(before, result)
    return bool(rest) and after[: len(rest)] == rest


# ---------------------------------------------------------------------------------------------
# --- 8. ToolkenGPT: a tool as a token, and the loss that skips its results ---
# ---------------------------------------------------------------------------------------------

NA = "[N/A]"


def digit_tokens(text: str) -> list[str]:
    """Tokenize with one token per digit, as LLaMA's tokenizer treats numbers. Example: '256 ft' -> ['2', '5', '6', 'ft']"""
    return [piece for token in tokenize(text) for piece in (list(token) if token.isdigit() else [token])]


def result_start(tokens: list[str], result: str) -> int:
    """Find where a result's digit tokens begin. Example: (['is', '2', '5', '6'], '256') -> 1"""
    return next(j for j in range(len(tokens)) if "".join(tokens[j: j + len(result)]) == result)


def toolken_target(tokens: list[str], start: int, length: int, toolken: str) -> list[str]:
    """Build ToolkenGPT's target s': the toolken at the first result token, [N/A] at the others.

    Example: (['is', '2', '5', '6'], 1, 3, '[square]') -> ['is', '[square]', '[N/A]', '[N/A]']
    """
    target = list(tokens)
    target[start] = toolken
    for j in range(start + 1, start + length):
        target[j] = NA
    return target


_WORD_PROBLEMS = [  # (text, the result in it, its toolken): the toolken head's training data
    ("A square room has sides of 12 feet, so the area is 144 square feet.", "144", "[square]"),
    ("The yard is a square with sides of 9 feet, so the area is 81 square feet.", "81", "[square]"),
    ("A square tile has sides of 15 inches, so the area is 225 square inches.", "225", "[square]"),
    ("The crew strung 120 and 85 meters of cable, so the total is 205 meters.", "205", "[add]"),
    ("We logged 11 and 7 faults, so the total is 18 faults.", "18", "[add]"),
    ("The depot has 14 and 9 trucks, so the total is 23 trucks.", "23", "[add]"),
    ("Each of 6 feeders serves 40 homes, so the product is 240 homes.", "240", "[multiply]"),
    ("The area of the square plot is unknown until we measure it.", None, None),
    ("The total of the bill is listed on page 2.", None, None),
]
TOOLKEN_EXAMPLE = ("The patio is a square with sides of 16 feet, so the area is 256 square feet.", "256", "[square]")


class ToolkenHead:
    """The only trained part of ToolkenGPT, in count form: P(next is toolken tau | the last two tokens).

    The frozen model keeps its word distribution; the head decides how much probability goes to
    each toolken (Hao et al., 2023, eq. 1: one softmax over [W_v; W_tau] h). Positions marked
    [N/A] are skipped while counting, exactly as they are skipped in the training loss.
    """

    def __init__(self, strength: float = 1.0):
        self.strength = strength  # how strongly a short context falls back on a shorter one
        self.counts: dict[tuple, Counter] = defaultdict(Counter)

    def fit(self, examples: list[tuple[list[str], list[str]]]) -> "ToolkenHead":
        """Count, for every non-[N/A] target position, which label (a toolken or <word>) follows its context."""
        for tokens, target in examples:
            for j, label in enumerate(target):
                if label == NA:
                    continue
                label = label if label.startswith("[") else "<word>"
                for k in range(3):  # contexts of 0, 1 and 2 original tokens, each level counted apart
                    self.counts[(k,) + (tuple(tokens[max(0, j - k): j]) if k else ())][label] += 1
        return self

    def prob(self, label: str, context: list[str], k: int = 2) -> float:
        """Return P(label | last k tokens), smoothed by falling back on shorter contexts."""
        # subtle: near the start of a text the 1- and 2-token contexts are the same slice; keyed by level,
        # each position is counted once per level, not three times under ()
        h = (k,) + (tuple(context[-k:]) if k else ())
        lower = self.prob(label, context, k - 1) if k else 1 / (1 + len(self.toolkens()))
        seen = self.counts.get(h, Counter())
        return (seen[label] + self.strength * lower) / (sum(seen.values()) + self.strength)

    def toolkens(self) -> set[str]:
        """Return the toolkens the head has seen."""
        return {label for c in self.counts.values() for label in c if label != "<word>"}


def toolken_loss_table(frozen: NGramLM, head: ToolkenHead, tokens: list[str], target: list[str]) -> list[tuple]:
    """Return (position, original, target, -log P(target | original prefix) or None if [N/A]) rows."""
    rows = []
    for j, (t, tt) in enumerate(zip(tokens, target)):
        if tt == NA:
            rows.append((j, t, tt, None))
            continue
        if tt.startswith("["):
            p = head.prob(tt, tokens[:j])
        else:
            p = head.prob("<word>", tokens[:j]) * frozen.prob(tt, tokens[:j])
        rows.append((j, t, tt, -math.log(p)))
    return rows


# At inference: a predicted toolken switches to tool mode, and its result comes back (scripts/02 demo 5)

# toolken -> the worked call its tool mode shows: the text before the call, the call's arguments
TOOLKEN_DEMONSTRATIONS: dict[str, tuple[str, tuple[int, ...]]] = {
    "[square]": ("A square room has sides of 12 feet, so the area is", (12,)),
    "[add]": ("The crew strung 120 and 85 meters of cable, so the total is", (120, 85)),
    "[multiply]": ("Each of 6 feeders serves 40 homes, so the product is", (6, 40)),
}


def toolken_model() -> tuple[NGramLM, ToolkenHead]:
    """Train demo 4's toolken model on the word problems: the frozen trigram, and the head over it."""
    examples = []
    for text, result, toolken in _WORD_PROBLEMS:
        tokens = digit_tokens(text)
        examples.append((tokens, tokens if result is None else
                         toolken_target(tokens, result_start(tokens, result), len(result), toolken)))
    return NGramLM(order=3).fit(announcement_corpus() + [t for t, _ in examples]), ToolkenHead().fit(examples)


def toolken_registry() -> tool_core.ToolRegistry:
    """Build the tools the toolkens call, as a tool_core registry: the toolken [square] calls square."""
    registry = tool_core.ToolRegistry()

    @registry.tool(read_only=True)
    def square(x: int) -> int:
        """Return x * x.

        Args:
            x: the side of the square
        """
        return x * x

    @registry.tool(read_only=True)
    def add(a: int, b: int) -> int:
        """Return a + b.

        Args:
            a: the first number
            b: the second number
        """
        return a + b

    @registry.tool(read_only=True)
    def multiply(a: int, b: int) -> int:
        """Return a * b.

        Args:
            a: the first number
            b: the second number
        """
        return a * b

    return registry


def join_digits(tokens: list[str]) -> list[str]:
    """Undo digit_tokens: merge each run of one-digit tokens into a number.

    Example: ['of', '1', '6', 'ft'] -> ['of', '16', 'ft']
    """
    out: list[str] = []
    for t in tokens:
        if len(t) == 1 and t.isdigit() and out and out[-1].isdigit():
            out[-1] += t
        else:
            out.append(t)
    return out


def next_label(frozen: NGramLM, head: ToolkenHead, context: list[str]) -> tuple[str, float]:
    """Return the likeliest next token, a word or a toolken, with its probability (one softmax over both: eq. 1)."""
    word = frozen.most_likely(context)  # the head scales every word by the same P(<word>): the best word stays best
    options = {word: head.prob("<word>", context) * frozen.prob(word, context)}
    options |= {t: head.prob(t, context) for t in sorted(head.toolkens())}
    best = max(options, key=lambda t: (options[t], t))
    return best, options[best]


def fill_arguments(demonstration: list[str], arguments: tuple, query: list[str]) -> list[str | None]:
    """Fill the call's slots as the demonstration filled its own: match, then copy (what an induction head does).

    For each argument, take the two tokens before it in the demonstration's text, find them in the
    query (a number there matches any number: "120 and" finds "40 and"), and copy the token that
    follows them (None where the query does not have them).
    Example: (['sides', 'of', '12', 'ft'], (12,), ['sides', 'of', '16', 'ft']) -> ['16']
    """
    def same(cue: list[str], seen: list[str]) -> bool:
        return all(a == b or a.isdigit() and b.isdigit() for a, b in zip(cue, seen))

    filled = []
    for value in arguments:
        if str(value) not in demonstration:
            raise ValueError(f"the demonstration {detokenize(demonstration)!r} never says its argument {value}: "
                             "write the text the argument comes from before the call")
        at = demonstration.index(str(value))
        cue = demonstration[max(0, at - 2): at]
        hits = [j + len(cue) for j in range(len(query) - len(cue)) if same(cue, query[j: j + len(cue)])]
        filled.append(query[hits[0]] if hits else None)
    return filled


@dataclass
class ToolMode:
    """One switch to tool mode: the prompt it built, the call it wrote, and what the tool returned."""

    toolken: str
    prompt: str  # the toolken's demonstration, then the text so far up to the toolken and "("
    arguments: dict
    call: str  # e.g. "[square](16)"
    result: tool_core.ToolResult


def tool_mode(toolken: str, context: list[str], registry: tool_core.ToolRegistry,
              demonstrations: dict[str, tuple] = TOOLKEN_DEMONSTRATIONS) -> ToolMode:
    """Switch to tool mode for a predicted toolken: prompt with its demonstration, write the call, run it.

    ToolkenGPT (Hao et al., 2023; handout 3.7) gives the frozen model a new prompt, demonstrations of
    the tool's "[tool](args)" syntax and then the text so far, and lets in-context learning write the
    arguments. A trigram cannot reach back to the numbers in the question, so fill_arguments stands in
    for that copying. A toolken without a demonstration is the programmer's mistake (ValueError); a call
    the tool refuses is the model's, and comes back in result.
    """
    if toolken not in demonstrations:
        raise ValueError(f"no demonstration for toolken {toolken!r}: tool mode needs a worked call of it (the text "
                         "before the call, and its arguments) in demonstrations, which has "
                         + (", ".join(sorted(demonstrations)) or "none"))
    before, shown = demonstrations[toolken]
    query = join_digits(context)
    values = fill_arguments(tokenize(before), shown, query)
    tool = registry.get(toolken.strip("[]"))
    slots = list(tool.parameters["properties"]) if tool else []
    arguments = {s: int(v) if v is not None and v.isdigit() else v for s, v in zip(slots, values)}
    prompt = f"{before} {toolken}({', '.join(map(str, shown))})\n{detokenize(query)} {toolken}("
    call = f"{toolken}({', '.join(str(v) for v in values)})"
    return ToolMode(toolken, prompt, arguments, call, registry.call(toolken.strip("[]"), arguments))


@dataclass
class ToolkenDecoded:
    """What reasoning mode wrote after a prompt, who wrote each token, and each switch to tool mode."""

    prompt: list[str]
    tokens: list[str]
    writers: list[str]  # "model" or "tool", one per token
    modes: list[ToolMode]


def decode_with_toolkens(frozen: NGramLM, head: ToolkenHead, prompt: list[str], registry: tool_core.ToolRegistry,
                         demonstrations: dict[str, tuple] = TOOLKEN_DEMONSTRATIONS,
                         max_tokens: int = 8) -> ToolkenDecoded:
    """Decode greedily in reasoning mode; at a toolken switch to tool mode, write its result, and switch back.

    The result's digits take the places the toolken's training target marks [N/A]; a failed call
    ends decoding, its error in the mode's result.
    """
    out = ToolkenDecoded(list(prompt), [], [], [])
    while len(out.tokens) < max_tokens:
        label, _ = next_label(frozen, head, out.prompt + out.tokens)
        if label == EOS:
            break
        if label not in head.toolkens():
            out.tokens.append(label)
            out.writers.append("model")
            continue
        mode = tool_mode(label, out.prompt + out.tokens, registry, demonstrations)
        out.modes.append(mode)
        if not mode.result.ok:
            break
        digits = digit_tokens(mode.result.text)
        out.tokens += digits
        out.writers += ["tool"] * len(digits)
    return out


# ---------------------------------------------------------------------------------------------
# --- 9. Demos for scripts/01_why_tools.py ---
# ---------------------------------------------------------------------------------------------

def multiplication_problems(seed: int, per_size: int, digits: tuple[int, ...] = (1, 2, 3)) -> list[tuple[int, int]]:
    """Draw per_size random (a, b) pairs of each digit count, with random.Random(seed)."""
    rng = random.Random(seed)
    return [(rng.randrange(10 ** (d - 1), 10 ** d), rng.randrange(10 ** (d - 1), 10 ** d))
            for d in digits for _ in range(per_size)]


def times_sentence(a: int, b: int) -> list[str]:
    """Write one training fact. Example: (4, 34) -> ['4', 'times', '34', 'is', '136']"""
    return [str(a), "times", str(b), "is", str(a * b)]


@tool_core.preformatted
def demo_cant_compute(seed: int = 0, per_size: int = 300, tests: int = 40) -> str:
    """A 5-gram model trained on "a times b is c" recites what it saw and guesses the rest."""
    drawn = multiplication_problems(seed, per_size)
    train = [p for p in drawn if p != (32, 34)]  # the demo's example stays unseen
    left_out = len(drawn) - len(train)
    held_out = f"; {left_out} drawn '32 times 34' left out, as the question below" if left_out else ""
    seen = set(train)
    lm = NGramLM(order=5).fit([times_sentence(a, b) for a, b in train])

    def answer(prompt: list[str]) -> str:
        return lm.most_likely(prompt, exclude=frozenset({EOS}))  # read a number, not the end of the sentence

    rows, memory, calculator = [], [], []
    for d in (1, 2, 3):
        probe = multiplication_problems(seed + 1000 + d, tests, (d,))
        right = sum(answer(times_sentence(a, b)[:4]) == str(a * b) for a, b in probe)
        exact = sum(tool_core.calculate(f"{a} * {b}") == a * b for a, b in probe)
        rows.append([f"{d} x {d} digits", len(probe), sum(p in seen for p in probe), f"{right / len(probe):.0%}",
                     f"{exact / len(probe):.0%}"])
        memory.append(100 * right / len(probe))
        calculator.append(100 * exact / len(probe))
    tool_core.record(tool_core.Chart(
        "01_accuracy_by_digits", "Multiplication: a 5-gram model's memory vs a calculator", "problem size",
        f"% of {tests} fresh problems answered right", [row[0] for row in rows],
        [("5-gram model", memory), ("calculate", calculator)],
        f"scripts/01_why_tools.py, demo 1 (seed {seed}): toolformer_lab.demo_cant_compute", y_max=100))
    recited = next((a, b) for a, b in train if a > 9)
    question = ["32", "times", "34", "is"]
    dist = lm.distribution(question)
    top = sorted((w for w in dist if w.isdigit()), key=lambda w: (dist[w], w), reverse=True)[:3]
    after = [f"'{a} times 34 is {a * 34}'" for a, b in train if b == 34]
    return "\n".join([
        f"Trained on {len(train)} sentences like '{' '.join(times_sentence(*recited))}' "
        f"({per_size} per digit count, seed {seed}{held_out}).\nIts answer is its most likely next word after 'is' "
        "(other than the end of the sentence).",
        f"  seen in training:  '{' '.join(times_sentence(*recited)[:4])}' -> {answer(times_sentence(*recited)[:4])}"
        f" (correct {recited[0] * recited[1]})",
        f"  unseen:            '32 times 34 is' -> {answer(question)} (correct {32 * 34})",
        f"  It never saw '32 times 34 is', so it backs off to 'times 34 is', seen in {len(after)} sentence(s): "
        f"{', '.join(after[:3]) or 'none'}{' ...' if len(after) > 3 else ''}.",
        "  Its top three answers: " + ", ".join(f"{w} {dist[w]:.3f}" for w in top)
        + " (ties go to the later word in sort order).",
        "",
        tool_core.format_table(["fresh test problems", "n", "seen in training", "5-gram correct",
                                "calculate correct"], rows),
        "The model is right about as often as the problem was in its training text: it memorised, it did not learn "
        "to multiply.\nA calculator does not depend on having seen the problem."])


_TEXT_2024 = [
    "Employees may work remotely up to 2 days per week.", "Under the 2024 policy employees may work remotely up to 2 days per week.",
    "Staff may work remotely up to 2 days per week with approval.", "Managers may work remotely up to 2 days per week too.",
    "The office is open from 8 to 6 on weekdays.", "Today is Monday and the team meets at 9.",
    "Today is Monday so the office is busy.", "Today is Friday and the canteen closes early.",
    "Today is Monday and the new interns start.", "The policy is reviewed every year.",
]
REMOTE_POLICY_2026 = "Since January 2026, employees may work remotely up to 3 days per week."


def policy_registry() -> tool_core.ToolRegistry:
    """Build demo 2's two tools: lookup_policy (today's company policy) and calendar (today's date)."""
    registry = tool_core.ToolRegistry()

    @registry.tool(read_only=True)
    def lookup_policy(topic: str) -> str:
        """Return the current company policy on a topic.

        Args:
            topic: e.g. "remote work"
        """
        if "remote" not in topic:
            raise LookupError(f"no policy on {topic!r}")
        return REMOTE_POLICY_2026

    @registry.tool(read_only=True)
    def calendar() -> str:
        """Return today's date."""
        return TODAY

    return registry


@tool_core.preformatted
def demo_cant_see() -> str:
    """A model trained on 2024 text answers with 2024's policy and guesses "today"; tools know better."""
    lm = NGramLM(order=3).fit([tokenize(s) for s in _TEXT_2024])
    registry = policy_registry()
    prompt = "Employees may work remotely up to"
    answer = detokenize(lm.generate(tokenize(prompt), 6, stop=(EOS, ".")))
    today = lm.generate(["Today", "is"], 1)[0]
    after = Counter(s.split()[2] for s in _TEXT_2024 if s.startswith("Today is"))
    return "\n".join([
        f"Trained on {len(_TEXT_2024)} sentences of 2024 company text (trigram).",
        f"  '{prompt}' -> model: '{answer}'",
        f"      lookup_policy('remote work') -> {registry.call('lookup_policy', {'topic': 'remote work'}).text}",
        f"  'Today is' -> model: '{today}' (after 'Today is' its training text had {dict(after.most_common())})",
        f"      calendar() -> {registry.call('calendar', {}).text}",
        "The model cannot know what changed after its training text or what day it is; a tool can look it up."])


def calculator_tool() -> tool_core.Tool:
    """Wrap tool_core.calculate as demo 3's tool."""
    return tool_core.tool_from_function(
        tool_core.calculate, description="Evaluate an arithmetic expression exactly: numbers, + - * / // % ** and parentheses.",
        read_only=True)


@tool_core.preformatted
def demo_calculator_loop() -> str:
    """Run 17,423 x 892 through tool_core.run_agent with a scripted model: prompt, call, result, answer."""
    registry = tool_core.ToolRegistry([calculator_tool()])

    def model(messages: list[dict]) -> str:
        if messages[-1]["role"] == "user":
            return "Let me compute that. " + tool_core.call_text("calculate", {"expression": "17423 * 892"})
        result = int(tool_core.parse_tool_results(messages[-1]["content"])[0]["content"])
        return f"17,423 x 892 = {result:,}."

    transcript = tool_core.run_agent(tool_core.ScriptedLM(model), registry, "What is 17,423 x 892?")
    tools_block = [line for line in transcript.messages[0]["content"].splitlines() if line.startswith("{")]
    return ("System prompt, tools block (the rest are the call format and rules):\n  " + "\n  ".join(tools_block)
            + "\n\n" + transcript.render())


# Lecture 000's fourth family, tools for what the model cannot read: a picture in, words out. A vision model would
# write the caption; this stand-in decodes the PNG (the format of RFC 2083) and names its colours.

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
COLOUR_NAMES = {"black": (0, 0, 0), "white": (255, 255, 255), "red": (220, 30, 30), "green": (40, 160, 60),
                "blue": (30, 80, 200), "yellow": (240, 210, 40), "grey": (128, 128, 128)}


def png_image(rows: list[str], palette: dict[str, tuple[int, int, int]]) -> bytes:
    """Write a small 8-bit RGB PNG, one letter per pixel. Example: (['rw'], {'r': (255, 0, 0), 'w': ...}) -> 2 x 1 PNG"""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", len(rows[0]), len(rows), 8, 2, 0, 0, 0)  # 8 bits, RGB, no interlacing
    raw = b"".join(b"\x00" + b"".join(bytes(palette[c]) for c in row) for row in rows)  # each row: filter 0, pixels
    return PNG_SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def png_pixels(data: bytes) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Read back what png_image writes: (width, height, pixels row by row). Anything else raises ValueError.

    A full PNG reader also undoes the four other row filters, palettes, alpha and other bit depths; this one
    refuses them, saying which.
    """
    if not data.startswith(PNG_SIGNATURE):
        raise ValueError("not a PNG: it does not start with the PNG signature")
    chunks, at = {}, len(PNG_SIGNATURE)
    while b"IEND" not in chunks:  # each chunk: length, type, data, CRC-32 of type and data
        length = struct.unpack(">I", data[at:at + 4])[0] if at + 4 <= len(data) else -1
        if length < 0 or at + 12 + length > len(data):
            raise ValueError("the PNG is cut short: it ends inside a chunk, before its IEND chunk")
        kind, body, crc = data[at + 4:at + 8], data[at + 8:at + 8 + length], data[at + 8 + length:at + 12 + length]
        if struct.unpack(">I", crc)[0] != zlib.crc32(kind + body):
            raise ValueError(f"the PNG's {kind.decode('latin-1')} chunk is damaged: its CRC does not match")
        chunks[kind] = chunks.get(kind, b"") + body  # IDAT may come in several chunks
        at += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks.get(b"IHDR", b"\0" * 13))
    if (depth, colour, interlace) != (8, 2, 0):
        raise ValueError(f"this reader takes 8-bit RGB PNGs without interlacing, got bit depth {depth}, colour type "
                         f"{colour}, interlace {interlace}")
    raw, stride = zlib.decompress(chunks.get(b"IDAT", b"")), 1 + 3 * width
    if len(raw) != stride * height or any(raw[r * stride] for r in range(height)):
        raise ValueError("this reader takes rows stored unfiltered (filter type 0), as png_image writes them")
    pixels = [tuple(raw[r * stride + 1 + 3 * x: r * stride + 4 + 3 * x]) for r in range(height) for x in range(width)]
    return width, height, pixels


def colour_name(rgb: tuple[int, int, int]) -> str:
    """Name the nearest of COLOUR_NAMES. Example: (250, 10, 10) -> 'red'"""
    return min(COLOUR_NAMES, key=lambda name: sum((a - b) ** 2 for a, b in zip(rgb, COLOUR_NAMES[name])))


def caption_image(image: str) -> str:
    """Describe a picture in words: its size and its colours, largest share first.

    Args:
        image: a PNG picture, base64-encoded
    """
    try:
        data = base64.b64decode(image, validate=True)
    except ValueError as exc:  # binascii.Error is a ValueError
        raise ValueError(f"the image is not base64 ({exc}); send the PNG's bytes base64-encoded") from None
    width, height, pixels = png_pixels(data)
    shares = Counter(colour_name(p) for p in pixels).most_common()
    return f"a picture of {width} x {height} pixels: " + ", ".join(f"{name} {n / len(pixels):.0%}" for name, n in shares)


def caption_tool() -> tool_core.Tool:
    """Wrap caption_image as a tool whose schema says what its string holds (JSON Schema 2020-12, section 8)."""
    tool = tool_core.tool_from_function(caption_image, read_only=True)
    tool.parameters["properties"]["image"] |= {"contentMediaType": "image/png", "contentEncoding": "base64"}
    return tool


FAMILIES = [  # lecture 000's four families of tools, with its example of each, and the lab tool that stands for it
    ("knowledge access", "search_engine(query) -> document", "lookup_policy"),
    ("computation", "calculator(formula) -> value", "calculate"),
    ("interaction with the world", "get_weather(city) -> weather", "create_ticket"),
    ("non-textual modalities", "image.caption(image) -> str", "caption_image"),
]
WARNING_SIGN = ["rrrrrrrr", "rrwwwwrr", "rrwwwwrr", "rrrrrrrr"]  # the picture demo 4 sends: a red sign, a white panel


def family_registry() -> tuple[tool_core.ToolRegistry, tool_core.OrrinGrid]:
    """Put one lab tool of each family in one registry: demo 2's policy lookup, demo 3's calculator, Orrin Grid's
    ticket (over the grid returned with it) and the captioner."""
    grid_tools, grid = tool_core.orrin_grid_registry()
    return tool_core.ToolRegistry([policy_registry().get("lookup_policy"), calculator_tool(),
                                   grid_tools.get("create_ticket"), caption_tool()]), grid


@tool_core.preformatted
def demo_tool_families() -> str:
    """One lab tool for each of lecture 000's four families, its shape read off its schemas, each called the same way."""
    registry, grid = family_registry()
    rows = [[family, example, tool_core.tool_signature(registry.get(name)),
             "read-only" if registry.get(name).read_only else "has side effects"] for family, example, name in FAMILIES]
    picture = base64.b64encode(png_image(WARNING_SIGN, {"r": (210, 20, 30), "w": (250, 250, 250)})).decode("ascii")
    calls = [("lookup_policy", {"topic": "remote work"}), ("calculate", {"expression": "17423 * 892"}),
             ("create_ticket", {"substation_id": "SS-218", "summary": "relay trips twice an hour", "priority": "high"}),
             ("caption_image", {"image": picture})]
    called, tickets = [], len(grid.tickets)
    for name, arguments in calls:
        shown = {k: (v[:24] + f"... ({len(v)} characters)" if k == "image" else v) for k, v in arguments.items()}
        called.append([name, json.dumps(shown), registry.call(name, arguments).text])
    return "\n".join([
        "Lecture 000 sorts tools into four families by what they are for. One lab tool of each, its typed inputs read off",
        "its JSON Schema and its typed output off its return type:",
        tool_core.format_table(["family", "the lecture's example", "the lab's tool: name(typed inputs) -> typed output",
                                "kind"], rows, [0, 0, 58, 0]),
        "",
        "One registry checks and runs all four the same way (validate, then execute):",
        tool_core.format_table(["tool", "arguments", "result"], called, [0, 44, 54]),
        "",
        f"Tickets in the work-order system: {tickets} before these calls, {len(grid.tickets)} after (create_ticket acts on "
        "the world).",
        "Different jobs, one outer shape: a name, typed inputs, a typed output. The model writes only the name and the",
        "inputs; the work happens outside it, and what comes back is data: here even the picture travels as text (base64)",
        "and its content comes back as words."])


# Handout 001, figure by figure: what `scripts/01_why_tools.py --vs-handout` prints, and README's table
HANDOUT_01: list[HandoutFigure] = [
    HandoutFigure(1, "§1", "order of the n-gram model that 'multiplies'", "5-gram (五元)", r"\b(\d)-gram correct"),
    HandoutFigure(1, "§1", "the model's answer to '32 times 34 is'", "136", r"'32 times 34 is' -> (\d+)",
                  "the seed draws the training sentences; the unseen question backs off to 'times 34 is', which here"
                  " only '15 times 34 is 510' and '54 times 34 is 1836' continue (a tie, broken by sort order); 136 "
                  "= 4 x 34 would need a 1-digit x 2-digit sentence, and the lab trains only on equal-digit pairs"),
    HandoutFigure(1, "§1", "the correct product 32 x 34", "1088", r"'32 times 34 is' -> \d+ \(correct (\d+)\)"),
    HandoutFigure(2, "§1", "year of the training text", "2024", r"sentences of (\d{4}) company text"),
    HandoutFigure(2, "§1", "the model's remote-work answer",
                  "2 days per week", r"remotely up to' -> model: '([^']+)'"),
    HandoutFigure(2, "§1", "the policy the tool returns",
                  "changed to 3 days in 2026", r"lookup_policy\('remote work'\) -> (.+)"),
    HandoutFigure(2, "§1", "the model's 'Today is' answer",
                  "the word that most often follows 'Today is' in training", r"'Today is' -> model: '(\w+)'"),
    HandoutFigure(3, "§2", "the call the model writes",
                  '<tool_call>{"name": "calculate", "arguments": {"expression": "17423 * 892"}}</tool_call>',
                  r"<tool_call>(\{.*?\})</tool_call>"),
    HandoutFigure(3, "§2", "the calculator's result",
                  "<tool_result>15541316</tool_result>", r"<tool_result[^>]*>(\d+)</tool_result>"),
    HandoutFigure(3, "§2", "the final answer", "17,423 × 892 = 15,541,316", r"\[model\] 17,423 x 892 = ([\d,]+)\."),
]


# ---------------------------------------------------------------------------------------------
# --- 10. Demos for scripts/02_toolformer.py ---
# ---------------------------------------------------------------------------------------------

@tool_core.preformatted
def demo_worked_numbers() -> str:
    """Check the filter on the lecture's numbers: 2.5 / 2.1 / 0.8 and the exercise 4.0 / 3.0 / 2.6."""
    weights = " + ".join(f"{w:.4f}" for w in WEIGHTS)
    ex, ex_alone = usefulness(4.0, 3.0, 2.6), usefulness(4.0, 3.0, 2.6, with_call_alone=False)
    return (f"weights w_t = max(0, 1 - 0.2 t) / 3 for t = 0..4: {weights} = {sum(WEIGHTS):.0f}\n"
            f"slide:    L(eps) = 2.5, L(call, no result) = 2.1, L(call + result) = 0.8 -> L- - L+ = "
            f"min(2.5, 2.1) - 0.8 = {usefulness(2.5, 2.1, 0.8):.1f}\n"
            f"exercise: 4.0 / 3.0 / 2.6 -> {ex:.1f} < tau = 1.0: dropped; with L- = L(eps) alone it would be "
            f"{ex_alone:.1f}: kept, crediting the call for what writing the question did")


@tool_core.preformatted
def demo_candidates(run: ToolformerRun, tau: float = 0.5) -> str:
    """Show every candidate for the megawatt sentence and the Ashholt sentence, with the three losses."""
    out = []
    for kind in ("capacity", "vendor"):
        n = next(k for k, t in enumerate(run.texts) if t.kind == kind)
        text = run.texts[n]
        out.append(f'"{detokenize(text.tokens)}"')
        rows = []
        for c in (c for c in run.candidates if c.text == n):
            where = " ".join(text.tokens[max(0, c.position - 2): c.position]) + " [.]"
            rows.append([where, c.call, c.result, f"{c.L_empty:.2f}", f"{c.L_call:.2f}", f"{c.L_result:.2f}",
                         f"{c.gain:+.2f}", "kept" if c.gain >= tau else "-"])
        out += [tool_core.format_table(["at", "call c", "result r", "L(eps)", "L(c, eps)", "L(c, r)", "L- - L+",
                                        f"tau={tau:g}"], rows), ""]
    out.insert(1, "'at': the two words before the position, and [.] where the call is inserted; each L is the "
                  "weighted loss\n(the weights w_t above) of the five tokens that follow [.] (fewer at the end of a "
                  "sentence).")
    right = next(c for c in run.candidates if c.gold and c.tool == "Calculator")
    out.append(f"The right calculation lowers the loss by {right.gain:.2f} nats: only its result lets the cache copy "
               f"'{right.result}', a number the model never saw. Writing the call without the result does not help "
               f"({right.L_call:.2f} vs {right.L_empty:.2f} with no call): what helps is the result, not the call. "
               "(The handout's own corpus gave 2.38 nats.)")
    return "\n".join(out)


TAUS = (None, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0)


def sweep_rows(candidates: list[Candidate]) -> list[list]:
    """Count kept calls (and how many are right) per tool, for each threshold in TAUS."""
    rows = []
    for tau in TAUS:
        kept = keep(candidates, tau)
        cells = []
        for tool in ("Calculator", "QA", "Calendar"):
            mine = [c for c in kept if c.tool == tool]
            cells.append(f"{len(mine)} ({sum(c.gold for c in mine)} right)")
        useless = sum(not c.gold for c in kept)
        rows.append(["no filter" if tau is None else f"{tau:g}", len(kept), *cells, f"{useless / max(len(kept), 1):.0%}"])
    return rows


def _gain_span(candidates: list[Candidate]) -> str:
    """Write the lowest and highest gain. Example: gains 0.51 and 3.89 -> '0.51 to 3.89'"""
    return f"{min(c.gain for c in candidates):.2f} to {max(c.gain for c in candidates):.2f}"


def _gain_range(candidates: list[Candidate], tool: str) -> str:
    low, high = (f(c.gain for c in candidates if c.gold and c.tool == tool) for f in (min, max))
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f}"


def _lowest_calendar(run: ToolformerRun) -> str:
    """Explain the smallest gain of a right Calendar() call with what the model already predicted there."""
    low = min((c for c in run.candidates if c.gold and c.tool == "Calendar"), key=lambda c: c.gain)
    tokens = run.texts[low.text].tokens
    p = run.lm.prob(tokens[low.position], tokens[: low.position])
    return (f"The lowest Calendar gain ({low.gain:.2f}) is before '{tokens[low.position]}' after "
            f"'{' '.join(tokens[low.position - 2: low.position])}', which the model alone already predicts with P = {p:.2f}.")


def _calculator_before_qa(run: ToolformerRun) -> str:
    """Say where a rising tau drops every one-token calculator result but keeps every two-token QA answer."""
    calc = max(c.gain for c in run.candidates if c.gold and c.tool == "Calculator")
    qa = min(c.gain for c in run.candidates if c.gold and c.tool == "QA")
    if calc >= qa:
        return "Here the calculator and QA gains overlap: no threshold separates them."
    return (f"Any tau between {calc:.2f} and {qa:.2f} drops every right calculator call and keeps every right QA call: "
            "the loss rewards results that predict several tokens.")


@tool_core.preformatted
def demo_threshold_sweep(run: ToolformerRun) -> str:
    """Sweep tau over all candidates; then switch the cache to copy punctuation and sweep again."""
    header = ["tau", "kept", "Calculator", "QA", "Calendar", "useless"]
    punct = toolformer_pipeline(run.seed, content_only=False)
    plain = [c for c in punct.candidates if run.texts[c.text].kind == "plain"]
    top = max(plain, key=lambda c: c.gain)
    text = run.texts[top.text].tokens
    content_top = max(c.gain for c in run.candidates if run.texts[c.text].kind == "plain")
    kept = [keep(run.candidates, tau) for tau in TAUS]
    tool_core.record(tool_core.Chart(
        "02_threshold_sweep", "Toolformer's filter: calls kept as the threshold tau grows", "threshold tau",
        "calls kept (of the rules' candidates)", ["no filter" if tau is None else f"{tau:g}" for tau in TAUS],
        [("right calls", [sum(c.gold for c in k) for k in kept]), ("useless calls", [sum(not c.gold for c in k)
                                                                                     for k in kept])],
        f"scripts/02_toolformer.py, demo 2 (seed {run.seed}): toolformer_lab.keep over the candidates"))
    return "\n".join([
        f"{len(run.texts)} texts, {len(run.candidates)} candidates written by rules (the paper samples them from the "
        f"model), all executed; {sum(c.gold for c in run.candidates)} are right.",
        tool_core.format_table(header, sweep_rows(run.candidates)),
        f"Gains of the right calls: Calculator {_gain_range(run.candidates, 'Calculator')} (one-token results), "
        f"QA {_gain_range(run.candidates, 'QA')} (two-token names), Calendar {_gain_range(run.candidates, 'Calendar')}.",
        _lowest_calendar(run),
        _calculator_before_qa(run),
        "",
        "The same sweep with a cache that also copies punctuation (the handout's first version):",
        tool_core.format_table(header, sweep_rows(punct.candidates)),
        f"Calendar() in texts that need no tool now gains up to {top.gain:.2f} nats (copying content words only: "
        f"at most {content_top:.2f}), e.g.",
        f'  "{detokenize(text[:top.position])} [Calendar() -> {TODAY}] {detokenize(text[top.position:])}"',
        "  its two commas 'help' predict the comma that follows; the filter measures prediction, not sense."])


@tool_core.preformatted
def demo_retrain(run: ToolformerRun, tau: float = 0.5) -> str:
    """Step 4: insert the kept calls, retrain a trigram, and measure where it now opens a call."""
    tests = toolformer_texts(run.seed + 1, held_out=True)
    if run.unfiltered is None:  # the same for every tau: a sweep over thresholds computes it once
        run.unfiltered = retrain(run, None, tests)
    kept, unfiltered = retrain(run, tau, tests), run.unfiltered
    ranked = sorted(kept.chosen, key=lambda k: (kept.chosen[k].tool != "Calculator", k))
    example = f'  "{detokenize(kept.augmented[ranked[0]])}"' if ranked else f"  (no call clears tau = {tau:g})"
    before_calls = call_contexts(kept.augmented)
    extra = [s for s in kept.sites if s.writes_call and not s.needs_call]
    missed = [max(sites, key=lambda s: s.p_open)  # a text's place closest to a call
              for sites in kept.needed().values() if not any(s.writes_call for s in sites)]
    reasons = Counter((tests[s.text].kind, "extra call" if s.writes_call else "missed call",
                       explain_wrong_call(s, kept.sites, tests, before_calls)) for s in extra + missed)
    rows = [[f"filter, tau = {tau:g}", len(kept.chosen)], ["no filter (each text's best candidate)", len(unfiltered.chosen)]]
    for row, result in zip(rows, (kept, unfiltered)):
        s = result.summary()
        row += [f"{s.p_needed:.3f}", f"{s.p_elsewhere:.3f}", f"{s.texts_called} of {s.texts_needing}", s.calls_elsewhere]
    useless = sum(not c.gold for c in unfiltered.chosen.values())
    return "\n".join([
        f"Inserted the best kept call into {len(kept.chosen)} of {len(run.texts)} training texts, e.g.",
        example,
        f"Retrained a trigram on the announcements plus the augmented texts; tested on {len(tests)} held-out texts",
        "(new numbers, vendors, date sentences and plain sentences). No training position was labelled by hand: the",
        "filter chose them. needs_call, the rule that labels candidates, grades the test: a date may be called before",
        "'Thursday' or before 'October'; 'where needed' takes each text's best place.",
        "",
        tool_core.format_table(["training text", "calls inserted", "P('[') where needed", "P('[') elsewhere",
                                "texts called where needed", "calls elsewhere"], rows),
        f"Without the filter every text gets its best candidate, {useless} of them a call that helps nothing; "
        f"P('[') where no call is needed: {rows[0][3]} with the filter, {rows[1][3]} without"
        + (" (with no call kept, '[' is a word the filtered model never saw: its P is the unseen-word share)."
           if not kept.chosen else "."),
        "",
        f"Where the filtered model calls wrongly (tau = {tau:g}):",
        tool_core.format_table(["text", "what", "times", "why"],
                               [[k, w, n, why] for (k, w, why), n in sorted(reasons.items())]) if reasons else "  nowhere"])


@tool_core.preformatted
def demo_toolken() -> str:
    """ToolkenGPT's target for "... the area is 256 square feet", and its loss over non-[N/A] positions."""
    frozen, head = toolken_model()
    text, result, toolken = TOOLKEN_EXAMPLE
    tokens = digit_tokens(text)
    start = result_start(tokens, result)
    target = toolken_target(tokens, start, len(result), toolken)
    table = toolken_loss_table(frozen, head, tokens, target)
    shown = [r for r in table if r[0] >= start - 3]
    rows = [[j, t, tt, "-" if loss is None else f"{loss:.2f}"] for j, t, tt, loss in shown]
    counted = [loss for _, _, _, loss in table if loss is not None]
    digits = sum(-math.log(frozen.prob(tokens[j], tokens[:j])) for j in range(start, start + len(result)))
    return "\n".join([
        f'"{text}" with one token per digit; the toolken head was trained on {len(_WORD_PROBLEMS)} word problems.',
        tool_core.format_table(["i", "original t_i", "target t'_i", "-log P(t'_i | t_<i)"], rows),
        f"Loss = sum over the {len(counted)} non-[N/A] positions = {sum(counted):.2f} nats "
        f"(the {sum(r[3] is not None for r in shown)} of them shown contribute "
        f"{sum(r[3] for r in shown if r[3] is not None):.2f}).",
        f"At the result the model pays -log P({toolken}) = {table[start][3]:.2f} once, for deciding to call, in place of "
        f"the digit {tokens[start]}; the digits {' '.join(tokens[start + 1:start + len(result)])} after it are [N/A] "
        f"and cost nothing (the frozen model alone would pay {digits:.2f} nats to guess "
        f"{' '.join(tokens[start:start + len(result)])})."])


def inference_prompt(text: Text) -> list[str]:
    """Return demo 5's prompt for a held-out text: its tokens up to where it needs a call (if none, its first half)."""
    return text.tokens[: text.call_position if text.call_positions else len(text.tokens) // 2]


def own_calls(texts: list[Text], seed: int) -> dict[int, Candidate]:
    """Return each text's own call, step 1's right candidate at the first place that needs it, by text index."""
    own: dict[int, Candidate] = {}
    for c in candidate_calls(texts, seed):
        if c.gold:
            own.setdefault(c.text, c)
    return own


def with_own_call(lm: NGramLM, decoded: Decoded, own: Candidate,
                  registry: tool_core.ToolRegistry) -> tuple[list[str], list[str], list[str]]:
    """Put the text's own call and its result where the model opened its call; return (before, result, what follows)."""
    before = decoded.prompt + decoded.tokens[: decoded.calls[0].at]
    result = registry.call(own.tool, own.arguments).text
    after = decode_with_tools(lm, before + call_tokens(own.call, result), registry, max_calls=0).tokens
    return before, tokenize(result), after


def _decoding_counts(trained: Retrained, tests: list[Text], decoded: list[Decoded], own: dict[int, Candidate],
                     registry: tool_core.ToolRegistry) -> dict[str, Counter]:
    """Count, per kind of held-out text and in all, the calls decoding opened, ran, got right, and copied.

    verbatim: a copy whose call, result and copied words stand in a row in a training text; given_seen:
    with the text's own call, the result's last word, "]" and the word after were a trigram of training.
    """
    lm, counts = trained.lm, {kind: Counter() for kind in (*TEST_SIZES, "all")}
    training = [f" {' '.join(t)} " for t in trained.augmented]
    for n, (text, d) in enumerate(zip(tests, decoded)):
        c = d.calls[0] if d.calls else None
        seen = Counter(texts=1, opened=c is not None, ok=c is not None and c.result.ok,
                       own=c is not None and n in own and c.written == own[n].call)
        before = d.prompt + d.tokens[: c.at] if c is not None else []
        if seen["ok"] and copies_result(before, c.inserted[:-1], d.after(c)):
            copied = d.tokens[c.at: c.arrow + 1 + len(c.inserted)] + unwritten(before, c.inserted[:-1])
            seen["copied"], seen["verbatim"] = 1, any(f" {' '.join(copied)} " in t for t in training)
        if c is not None and n in own:
            before, result, after = with_own_call(lm, d, own[n], registry)
            seen["given"], seen["given_copied"] = 1, copies_result(before, result, after)
            seen["given_seen"] = lm.counts[lm.order][(result[-1], "]", unwritten(before, result)[0])] > 0
        counts[text.kind].update(seen)
        counts["all"].update(seen)
    return counts


def _decoding_lines(run: ToolformerRun, tau: float) -> list[str]:
    """Demo 5's first half: Toolformer's retrained trigram decodes held-out texts, the harness running its calls."""
    tests = toolformer_texts(run.seed + 1, held_out=True)
    trained, registry = retrain(run, tau, []), toolformer_registry()
    own = own_calls(tests, run.seed + 1)
    decoded = [decode_with_tools(trained.lm, inference_prompt(t), registry) for t in tests]
    shown = [next(n for n, t in enumerate(tests) if t.kind == kind) for kind in TEST_SIZES]
    rows = []
    for n in shown:
        c = decoded[n].calls[0] if decoded[n].calls else None
        returned = "-" if c is None else c.result.text if c.result.ok else f"{c.result.error_kind}: {c.result.message}"
        copied = "-" if c is None or not c.result.ok else "yes" if copies_result(
            decoded[n].prompt + decoded[n].tokens[: c.at], c.inserted[:-1], decoded[n].after(c)) else "no"
        rows.append([tests[n].kind, "(no call)" if c is None else c.written, returned,
                     own[n].call if n in own else "(needs none)", copied])
    counts = _decoding_counts(trained, tests, decoded, own, registry)
    tally = [[kind, k["texts"], k["opened"], k["ok"], k["own"], f"{k['copied']} of {k['ok']}",
              f"{k['given_copied']} of {k['given']}" if k["given"] else "-"] for kind, k in counts.items()]
    total = counts["all"]
    top10 = [decode_with_tools(trained.lm, inference_prompt(t), registry, k=10) for t in tests]
    changed = Counter(t.kind for t, d, d10 in zip(tests, decoded, top10) if d10.tokens != d.tokens)
    return [
        f"Demo 3's trigram (tau = {tau:g}) decodes each held-out text from where it needs a call (a plain text: from "
        "its middle),",
        "writing its likeliest token each step. At '->' (the paper's arrow) the harness stops it, runs the call "
        "through the",
        "registry, writes the result and ']', and decoding goes on; outside a call only the harness writes '->' and "
        "']'. At most",
        "one call per text, as in the paper. The first held-out text of each kind:",
        *(f'  {tests[n].kind:<9}"{decoded[n].text()}"' for n in shown),
        "",
        tool_core.format_table(["text", "the model wrote", "the registry returned", "the text's own call",
                                "result copied after ']'"], rows),
        "",
        f"All {len(tests)} held-out texts ('given its own call': the text's own call and result put where the model "
        "opened its call):",
        tool_core.format_table(["text", "texts", "calls opened", "returned a result", "the text's own call",
                                "result copied", "given its own call: copied"], tally),
        "Where to call and which tool were learned (demo 3); what goes inside a call was not. A trigram sees two "
        "words: after",
        "'Calculator (' it writes numbers from its training text, never the ones ten words back, and the registry "
        "runs the call",
        f"as written. {total['verbatim']} of the {total['copied']} copies repeat a training text word for word: the "
        "call, its result, the words after.",
        f"Given its own call, it goes on with the result in {total['given_copied']} of {total['given']} texts; a "
        "training text had the result's last word, ']'",
        f"and the next word in a row for {total['given_seen']} of the {total['given']}: after ']' a trigram sees "
        "those two words, not the call or its question.",
        "",
        "How this differs from the paper: Toolformer decodes greedily too, the harness writing each result at '->', "
        "with one",
        "call per input, but it opens a call whenever '[' is among the k = 10 likeliest tokens, not only the "
        "likeliest, so that",
        "the model calls more often; the handout (3.5) says only that the model decodes as usual. Decoded with k = "
        f"10, {sum(changed.values())} of",
        f"the {len(tests)} prompts come out differently"
        + (": at every step where they could open a call, '[' is the likeliest token or not among the 10."
           if not changed else f" ({', '.join(f'{n} {kind}' for kind, n in sorted(changed.items()))}), with "
           f"{sum(bool(d.calls) for d in top10)} calls against {total['opened']}.")]


def _tool_mode_lines() -> list[str]:
    """Demo 5's second half: one step of ToolkenGPT's tool mode, beside the training loss that skips [N/A]."""
    frozen, head = toolken_model()
    registry = toolken_registry()
    text, result, toolken = TOOLKEN_EXAMPLE
    tokens = digit_tokens(text)
    start = result_start(tokens, result)
    context = tokens[:start]
    decoded = decode_with_toolkens(frozen, head, context, registry)
    mode = decoded.modes[0]
    word = frozen.most_likely(context)
    scores = [f"P({t}) = {head.prob(t, context):.2f}" for t in sorted(head.toolkens())]
    scores.append(f"the likeliest word '{word}' {head.prob('<word>', context) * frozen.prob(word, context):.2f}")
    before, shown = TOOLKEN_DEMONSTRATIONS[mode.toolken]
    demo_tokens = tokenize(before)
    cue = " ".join(demo_tokens[max(0, demo_tokens.index(str(shown[0])) - 2): demo_tokens.index(str(shown[0]))])
    target = toolken_target(tokens, start, len(result), toolken)
    losses = toolken_loss_table(frozen, head, tokens, target)
    written = context + decoded.tokens
    rows = [[j, tokens[j], target[j], "-" if losses[j][3] is None else f"{losses[j][3]:.2f}",
             written[j] if j < len(written) else "", "prompt" if j < start else
             decoded.writers[j - start] if j < len(written) else ""] for j in range(start - 3, start + len(result) + 1)]
    skipped = [j for j, _, _, loss in losses if loss is None]
    by_tool = [start + i for i, w in enumerate(decoded.writers) if w == "tool"]
    early = next((j for j in range(1, start) if next_label(frozen, head, tokens[:j])[0] in head.toolkens()), None)
    try:
        tool_mode("[divide]", context, registry)
        refused = "no error"
    except ValueError as exc:
        refused = f"ValueError: {exc}"
    return [
        "ToolkenGPT at inference, with demo 4's toolken model (the frozen trigram and the toolken head over it).",
        f"Reasoning mode, after \"...{detokenize(join_digits(context[-3:]))}\": {', '.join(scores[:-1])},",
        f"{scores[-1]} -> {mode.toolken}: tool mode, a new prompt: the {mode.toolken} demonstration, then the "
        "text so far.",
        *(f"    {line}" for line in mode.prompt.splitlines()),
        f"It writes {mode.call}, the argument copied from after '{cue}', where the demonstration's {shown[0]} "
        "stood: the frozen",
        "LLM would copy it by in-context learning, and fill_arguments stands in (a trigram sees two words). The "
        "registry runs",
        f"{mode.toolken.strip('[]')}({', '.join(f'{k}={v}' for k, v in mode.arguments.items())}) -> "
        f"{mode.result.text}; back in reasoning mode, the text is \"{detokenize(join_digits(written))}\"",
        "",
        tool_core.format_table(["i", "original t_i", "training target t'_i", "-log P(t'_i | t_<i)",
                                "at inference", "written by"], rows),
        f"The loss skips positions {', '.join(map(str, skipped))}: the result's tokens after its first, which the "
        "tool writes at inference",
        f"(it wrote {', '.join(map(str, by_tool))}); at {start}, where the model predicted {toolken}, the loss "
        "counts that decision once.",
        (f"Read from its start, the head already reaches for a toolken after \"{detokenize(tokens[:early])}\": "
         "it, too, sees two words." if early is not None else "Read from its start, no toolken comes before it."),
        "A toolken with no demonstration, tool_mode('[divide]', ...):",
        f"  {refused}"]


@tool_core.preformatted
def demo_tool_use(run: ToolformerRun, tau: float = 0.5) -> str:
    """Tool use at inference: Toolformer decoding with its tools, and ToolkenGPT switching to tool mode."""
    return "\n".join(_decoding_lines(run, tau) + ["", ""] + _tool_mode_lines())


WEAK_COPY = 0.05  # demo 6's middle model: a copy cache a quarter as strong as the one of demos 1-3


def rescored(run: ToolformerRun, model: CachedLM | NGramLM) -> list[Candidate]:
    """Step 3 again with another model: copies of the run's executed candidates, their three losses recomputed."""
    candidates = [dataclasses.replace(c) for c in run.candidates]
    score_candidates(candidates, run.texts, model)
    return candidates


def _without_cache(lm: NGramLM, alone: list[Candidate], tau: float) -> str:
    """Say what the trigram alone makes of a result: how often it cannot tell it from none, and what the filter keeps."""
    same, best, kept = sum(c.L_result == c.L_call for c in alone), max(c.gain for c in alone), keep(alone, tau)
    why = ("The trigram alone predicts a word from the two before it: after a call both histories end in ']', a word it "
           "never saw,\nso it falls back to its one-word estimate whether the result is there or not: "
           if not lm.knows("]") else "The trigram alone: ")
    verdict = ("nothing is kept, and step 4 has nothing to learn from." if not kept else
               f"{len(kept)} calls meet tau = {tau:g}" + (", though none gains anything: noise, not a signal."
                                                          if best <= 0 else "."))
    return (f"{why}L(e(c, r)) = L(e(c, eps)) for {same} of {len(alone)}\ncandidates, and no call gains more than "
            f"{best:.2f}: {verdict}")


@tool_core.preformatted
def demo_too_weak(run: ToolformerRun, tau: float = 0.5) -> str:
    """The filter with models that can use a result less and less: no copy cache, a weak one, demos 1-3's."""
    models = [("trigram alone, no copy cache", run.lm, None),
              (f"trigram, copy weight {WEAK_COPY:g}", CachedLM(run.lm, weight=WEAK_COPY), None),
              ("trigram, copy weight 0.2 (demos 1-3)", CachedLM(run.lm), run.candidates)]
    megawatt = next(c for c in run.candidates if c.gold and c.tool == "Calculator")
    tokens = run.texts[megawatt.text].tokens
    before, word = tokens[:megawatt.position], tokens[megawatt.position]
    rows, alone = [], None
    for label, model, candidates in models:
        candidates = candidates if candidates is not None else rescored(run, model)
        alone = candidates if alone is None else alone  # the first model's: the trigram without a cache
        kept, right = keep(candidates, tau), [c for c in candidates if c.gold]
        p_after = model.prob(word, before + call_tokens(megawatt.call, megawatt.result))
        rows.append([label, f"{p_after:.4f} ({model.prob(word, before):.4f})", len(kept),
                     f"{sum(c.gold for c in kept)} of {len(right)}", _gain_span(right)])
    return "\n".join([
        "Handout 001 §3.5: on small GPT-2 models Toolformer's calls did not help; tool use came only with size. The same",
        f"filter (tau = {tau:g}) on the same {len(run.candidates)} executed candidates, with three models that differ only "
        "in how much they can copy\nfrom their context, and so in how much a result can help them:",
        tool_core.format_table(["model", f"P('{word}'), result (no call)", f"kept (tau = {tau:g})", "right kept",
                                "right calls' gains"], rows),
        f"P('{word}'): the megawatt sentence's next word right after [{megawatt.call} -> {megawatt.result}], and in "
        "brackets with no call there.",
        _without_cache(run.lm, alone, tau),
        "A cache that copies a little already lets results help; copying more, the right calls gain more. The calls pay "
        "only once\nthe model can use what the tool returns."])


# Handout 001, figure by figure: what `scripts/02_toolformer.py --vs-handout` prints, and README's table
_CORPUS_DIFFERS = ("the lab's corpus differs from the handout's (course announcements as background, its own "
                   "generated texts and candidate rules), so every loss differs")  # why every loss figure differs
HANDOUT_02: list[HandoutFigure] = [
    HandoutFigure(0, "§3.4", "Toolformer's loss weights (the section before demo 1)",
                  "w_t = max(0, 1 - 0.2t), normalised, 5 tokens", r"for t = 0\.\.4: ([\d. +]+= 1)"),
    HandoutFigure(0, "§12 ex. 1", "exercise 1: the filter on 4.0 / 3.0 / 2.6 at tau = 1.0",
                  "L(eps) = 4.0, L(e(c, eps)) = 3.0, L(e(c, r)) = 2.6, tau = 1.0 (a question; no answer given)",
                  r"exercise: (4\.0 / 3\.0 / 2\.6 -> [\d.]+ < tau = 1\.0: \w+)"),
    HandoutFigure(1, "§3.6", "demo 1's first sentence",
                  "...two transformers of 120 and 85 megawatts, so its capacity is 205 megawatts.",
                  r'(?m)^"(Substation [^"]*megawatts\.)"$'),
    HandoutFigure(1, "§3.6", "demo 1's second sentence",
                  "The vendor Ashholt was founded by Tove Belwick.", r'(?m)^"(The vendor Ashholt[^"]*)"$'),
    HandoutFigure(1, "§3.6", "loss drop of the right calculation (120 + 85), nats",
                  "2.38", r"lowers the loss by ([\d.]+) nats",
                  _CORPUS_DIFFERS + "; the megawatt sentence is fixed, so no seed moves this figure (the script itself "
                  "says 'The handout's own corpus gave 2.38 nats')"),
    HandoutFigure(1, "§3.6", "L(e(c, eps)) of the right calculation: the call without its result",
                  "5.44", r"does not help \(([\d.]+) vs [\d.]+ with no call\)", _CORPUS_DIFFERS),
    HandoutFigure(1, "§3.6", "L(eps) of the megawatt sentence: no call",
                  "5.37", r"does not help \([\d.]+ vs ([\d.]+) with no call\)", _CORPUS_DIFFERS),
    HandoutFigure(2, "§3.6", "texts in the threshold sweep", "120", r"(\d+) texts, \d+ candidates"),
    HandoutFigure(2, "§3.6", "executed candidates in the sweep", "404", r"\d+ texts, (\d+) candidates",
                  "candidate rules differ: each of the 15 date texts now gets a right Calendar() candidate before "
                  "both 'Thursday' and 'October' (needs_call accepts either), so the rules write 15 more candidates "
                  "than one per date text; a design choice, not a knob (every seed gives 420)"),
    HandoutFigure(2, "§3.6", "calls kept at tau = 1 (the handout: any tau from 0.5 to 1.5 keeps exactly the right "
                             "calls, all 95 here)",
                  "all right calls, no useless one, for tau 0.5-1.5", r"(?m)^1\s{2,}(\d+)\s",
                  "the right Calendar calls gain 0.51-3.89 nats here (the lowest before 'Thursday' after 'Today is',"
                  " which the model alone already predicts with P = 0.19), so 6 go at tau = 1 and one calculator "
                  "call at tau = 1.5; only tau = 0.5 keeps exactly the 95 right calls (README lists this one)"),
    HandoutFigure(2, "§3.6", "gains of the right calculator calls, nats",
                  "1.62-2.38", r"Calculator ([\d.]+-[\d.]+) \(one-token", _CORPUS_DIFFERS),
    HandoutFigure(2, "§3.6", "gains of the right QA and Calendar calls (the handout: larger than the calculator's)",
                  "larger than the calculator's 1.62-2.38 (no figure)",
                  r"(QA \d+\.\d+ \(two-token names\), Calendar \d+\.\d+-\d+\.\d+)",
                  "QA is larger as the handout says, but the weakest Calendar calls gain less than any calculator "
                  "call: the model alone already predicts 'Thursday' after 'Today is' (P = 0.19)"),
    HandoutFigure(2, "§3.6, §12 ex. 2", "calculator calls kept at tau = 2 (they go first)",
                  "0 (all dropped at tau = 2.0)", r"(?m)^2\s{2,}\d+\s+(\d+ \(\d+ right\))"),
    HandoutFigure(2, "§3.6", "pitfall: largest gain of Calendar() where no tool is needed, cache copying punctuation",
                  "1.04", r"now gains up to ([\d.]+) nats", _CORPUS_DIFFERS),
    HandoutFigure(2, "§3.6", "the same gain with the content-words-only cache (the handout: 'then it behaved')",
                  "no spurious gain", r"copying content words only: at most ([\d.]+)\)"),
    HandoutFigure(3, "§3.6", "the retrained model's order", "trigram (三元)",
                  r"Retrained a (\w+) on the announcements"),
    HandoutFigure(3, "§3.6", "mean P('[') where a call is needed, tau = 0.5",
                  "0.504", r"filter, tau = 0\.5\s+\d+\s+([\d.]+)",
                  "grading rule: needs_call now counts a date call before 'October' as needed, as well as before "
                  "'Thursday' (the handout's test), and 'where needed' takes each text's best place"),
    HandoutFigure(3, "§3.6", "mean P('[') elsewhere, tau = 0.5",
                  "0.016", r"filter, tau = 0\.5\s+\d+\s+[\d.]+\s+([\d.]+)",
                  "same grading rule: the 15 calls before 'October' are no longer counted as 'elsewhere'"),
    HandoutFigure(3, "§3.6", "test texts called where a call is needed (the handout: 15 misses in the date texts)",
                  "15 missed", r"filter, tau = 0\.5\s+\d+\s+[\d.]+\s+[\d.]+\s+(\d+ of \d+)",
                  "the 15 misses were the date texts called before 'October' and graded only before 'Thursday'; the "
                  "lab's needs_call accepts both, so there is no miss"),
    HandoutFigure(3, "§3.6", "where the filtered model calls wrongly (the only row of that table)",
                  "15 extra before 'October' (= the 15 misses) + the rest after ', so'",
                  r"(?m)^(\w+\s+(?:extra|missed) call\s+\d+)\s",
                  "same grading rule: only the ', so' extras remain (10, in the capacity texts); the handout's '15 "
                  "misses = 15 extras' story has nothing left to describe"),
    HandoutFigure(4, "§3.7", "ToolkenGPT's example sentence",
                  "the area is 256 square feet", r'so (the area is 256 square feet)\."'),
    HandoutFigure(4, "§3.7", "target at the first result token", "[square]", r"(?m)^16\s+2\s+(\[\w+\])"),
    HandoutFigure(4, "§3.7", "target at the other result tokens (no loss)",
                  "not counted in the loss", r"(?m)^17\s+5\s+(\[N/A\])"),
]


# ---------------------------------------------------------------------------------------------
# --- 11. Constrained decoding: a subword vocabulary learned by byte-pair merges ---
# ---------------------------------------------------------------------------------------------

# Sections 11-17 are the chapter behind scripts/08_constrained_decoding.py (lecture 003 section 2).
# A tool call is valid by construction if, before each token is sampled, every token after which no
# valid output can follow is masked out and the model's probability is renormalised over the rest.
# The pushdown automaton follows Sipser (Introduction to the Theory of Computation, section 2.4); the
# three ways to compute a mask follow XGrammar (Dong et al., MLSys 2025, https://arxiv.org/abs/2411.15100);
# the distortion follows Grammar-Aligned Decoding (Park et al., NeurIPS 2024, https://arxiv.org/abs/2405.21047).
# Left out: JSON Schema beyond the tool-call subset (schema_automaton refuses the rest by name);
# XGrammar's persistent stack, its bitset masks, its fuller context expansion and its overlap of the
# mask with the model's own step; a tokenizer over bytes (ours covers printable ASCII); GAD's fix (ASAp).

BASE_CHARACTERS = [chr(c) for c in range(32, 127)]  # printable ASCII: every character the lab's calls use
BPE_SIZE = 256  # 95 characters + 161 merges. Small on purpose: every mask method's cost grows with the
#                 vocabulary, and 256 tokens keep the naive walk measurable in a fraction of a second
#                 while still learning tokens such as '"}' that span a string's end and an object's.
_CHUNK = re.compile(r" ?[A-Za-z]+| ?[0-9]{1,3}| ?[^\sA-Za-z0-9]+|\s+")  # merges never cross a chunk (as in GPT-2)

LAB_PROSE = [  # the lab's own text, beside its calls, for the merges to learn from
    "Orrin Grid runs substations such as SS-218 on Kestrel Road and SS-031 on Mill Lane.",
    "Incident E-1474 was a tree branch across the 11 kV feeder; 312 customers were affected.",
    "Gil Varga (customer C-107) asked about the outage; a crew fixed transformer TR-204.",
    'A tool result: {"ticket": "WO-5001", "open": true, "crew": null, "urgent": false}',
    'Another result: {"code": "E-1502", "status": "open", "cause": null, "customers_affected": 57}',
    'An empty result: {"crew": null, "eta": null, "notes": null, "done": false}',
    "The model writes a call, the harness validates it, runs the tool and returns the result.",
    "Tove Belwick founded Ashholt; the two plants make 120 and 85 megawatts, 205 in all.",
]


class Vocabulary:
    """A subword vocabulary: token texts by id, and the merges that build them from characters."""

    def __init__(self, tokens: list[str], merges: dict[tuple[str, str], int]):
        self.tokens, self.merges = list(tokens), dict(merges)  # merges: (left, right) -> rank
        self._base = set(BASE_CHARACTERS)
        self._chunks: dict[str, list[str]] = {}

    def __repr__(self) -> str:
        """Say how many tokens and merges, and show the longest tokens learned."""
        longest = sorted(self.tokens, key=lambda t: (-len(t), t))[:3]
        return (f"Vocabulary({len(self.tokens):,} tokens, {len(self.merges):,} merges; "
                f"longest: {tool_core.name_list(map(repr, longest), 100)})")

    def encode(self, text: str) -> list[str]:
        """Cut text into chunks, then merge each chunk's characters in the order the merges were learned.

        Example: '{"age": 42}' -> ['{"', 'age', '":', ' 42', '}'] (with the lab's vocabulary)
        """
        out = []
        for chunk in _CHUNK.findall(text):
            if chunk not in self._chunks:
                self._chunks[chunk] = self._merge_chunk(chunk)
            out += self._chunks[chunk]
        return out

    def decode(self, tokens: list[str]) -> str:
        """Join tokens back into text. Example: ['{"', 'age', '":', ' 42', '}'] -> '{"age": 42}'"""
        return "".join(tokens)

    def _merge_chunk(self, chunk: str) -> list[str]:
        if not set(chunk) <= self._base:
            raise ValueError(f"cannot encode {chunk!r}: the vocabulary covers printable ASCII only")
        parts = list(chunk)
        while len(parts) > 1:
            rank, pair = min((self.merges.get(p, math.inf), p) for p in zip(parts, parts[1:]))
            if rank == math.inf:
                break
            parts = _merge_pair(parts, pair)
        return parts


def _merge_pair(parts: list[str], pair: tuple[str, str]) -> list[str]:
    """Replace every occurrence of pair, left to right. Example: (['a', 'a', 'a'], ('a', 'a')) -> ['aa', 'a']"""
    out, i = [], 0
    while i < len(parts):
        if i + 1 < len(parts) and (parts[i], parts[i + 1]) == pair:
            out.append(parts[i] + parts[i + 1])
            i += 2
        else:
            out.append(parts[i])
            i += 1
    return out


def train_bpe(texts: list[str], size: int = BPE_SIZE) -> Vocabulary:
    """Learn byte-pair merges (Sennrich et al., 2016) over the texts' chunks until `size` tokens or no pair repeats.

    Each round merges the most frequent adjacent pair (ties: the pair counted first); only the
    chunks that hold it are recounted, so training is quick.
    """
    counts = Counter(chunk for text in texts for chunk in _CHUNK.findall(text))
    words, freq = [list(w) for w in counts], list(counts.values())
    pairs, where = Counter(), defaultdict(set)
    for i, word in enumerate(words):
        _count_pairs(word, freq[i], i, pairs, where)
    tokens, merges = list(BASE_CHARACTERS), {}
    known = set(tokens)
    while len(tokens) < size and pairs:
        best = max(pairs, key=pairs.get)
        if pairs[best] < 2:
            break
        merges[best] = len(merges)
        if best[0] + best[1] not in known:  # subtle: ('a', 'bc') and ('ab', 'c') both make 'abc'
            known.add(best[0] + best[1])
            tokens.append(best[0] + best[1])
        for i in sorted(where.pop(best)):
            _count_pairs(words[i], -freq[i], i, pairs, where)
            words[i] = _merge_pair(words[i], best)
            _count_pairs(words[i], freq[i], i, pairs, where)
    return Vocabulary(tokens, merges)


def _count_pairs(word: list[str], weight: int, i: int, pairs: Counter, where: defaultdict) -> None:
    for pair in zip(word, word[1:]):
        pairs[pair] += weight
        if pairs[pair] <= 0:
            del pairs[pair]
        elif weight > 0:
            where[pair].add(i)


# ---------------------------------------------------------------------------------------------
# --- 12. A model that writes calls: the n-gram over subword tokens ---
# ---------------------------------------------------------------------------------------------

PERSON_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                 "required": ["name", "age"]}  # the lecture's schema, as the tool add_person's parameters


def call_tools() -> dict[str, dict]:
    """Return the parameters of the three tools the models learn to call: add_person and two Orrin Grid tools.

    create_ticket's schema is tool_core's own. tool_core's search_incidents takes `filters` as a
    bare object; here its two optional keys are spelled out, as its description gives them,
    because the automaton needs properties to know which keys it may write.
    """
    registry, _ = tool_core.orrin_grid_registry()
    search = json.loads(json.dumps(registry.get("search_incidents").parameters))
    search["properties"]["filters"].update(
        properties={"substation_id": {"type": "string"}, "status": {"type": "string", "enum": ["open", "resolved"]}},
        additionalProperties=False)
    return {"add_person": PERSON_SCHEMA, "create_ticket": registry.get("create_ticket").parameters,
            "search_incidents": search}


_NAMES = ["Ann", "Gil Varga", "Dana Okafor", "Ivo Brandt", "Tove Belwick", "Mia", "Leo"]
_AGES = [42, 42, 35, 28, 61, 19, 50, 73]  # Ann's 42 twice, so that " 42" earns a token
_SUBSTATIONS = ["SS-218", "SS-031", "SS-104", "SS-077"]
_SUMMARIES = ["relay trips at night", "transformer TR-204 is humming", "fence damaged", "oil leak at the breaker",
              "meter MT-123 reads zero"]
# A share of the training calls (constrained_lab's `slips`) carries one slip, as JSON written by eye does (lecture
# 003): the models learn them and repeat them when they sample freely, beside their own n-gram confusions.
SLIPS = ("trailing comma", "quoted integer", "missing brace")


def training_arguments(tool: str, rng: random.Random, slips: float = 0.0) -> str:
    """Write one call's arguments as json.dumps does, in schema order, optional ones about half the time; with chance
    `slips`, one of SLIPS.

    Example: ('add_person', rng) -> '{"name": "Ann", "age": 42}'
    """
    if tool == "add_person":
        args = {"name": rng.choice(_NAMES), "age": rng.choice(_AGES)}
    elif tool == "create_ticket":
        args = {"substation_id": rng.choice(_SUBSTATIONS), "summary": rng.choice(_SUMMARIES)}
        if rng.random() < 0.5:
            args["priority"] = rng.choice(["low", "normal", "high"])
    else:
        filters = {k: v for k, v in (("substation_id", rng.choice(_SUBSTATIONS)),
                                     ("status", rng.choice(["open", "resolved"]))) if rng.random() < 0.6}
        args = {"filters": filters} | ({"limit": rng.choice([5, 10, 20])} if rng.random() < 0.5 else {})
    integers = any(isinstance(v, int) for v in args.values())
    slip = rng.choice([s for s in SLIPS if integers or s != "quoted integer"]) if rng.random() < slips else None
    if slip == "quoted integer":
        args = {k: str(v) if isinstance(v, int) else v for k, v in args.items()}
    text = json.dumps(args)
    if slip == "trailing comma":
        return text[:-1] + ",}"
    return text[:-1] if slip == "missing brace" else text


class CallModel:
    """An NGramLM's next-token distribution over a vocabulary's ids; id len(tokens) is the end (</s>).

    P(token | context) is the Kneser-Ney probability NGramLM.prob gives, for every token at once;
    the tokens the n-gram never saw share its unknown-word mass (NGramLM gives each of them all
    of it). One model per tool: an n-gram forgets a prompt naming the tool after order-1 tokens.
    """

    def __init__(self, lm: NGramLM, vocab: Vocabulary):
        self.lm, self.vocab, self.end = lm, vocab, len(vocab.tokens)
        words = vocab.tokens + [EOS]
        self._ids = {w: i for i, w in enumerate(words)}
        self._known = [lm.knows(w) for w in words]
        self._vectors: dict[tuple, list[float]] = {}
        self._probs: dict[tuple, list[float]] = {}
        self._cumulative: dict[tuple, list[float]] = {}

    def __repr__(self) -> str:
        """Say which n-gram and how many token ids (the last one is the end, </s>)."""
        return (f"CallModel(order-{self.lm.order} NGramLM over {self.end + 1:,} token ids, "
                f"{len(self.lm.counts[self.lm.order]):,} distinct {self.lm.order}-grams)")

    def history(self, context: list[str]) -> tuple[str, ...]:
        """Return the last order-1 words of context, padded with <s> as NGramLM.prob pads them."""
        n = self.lm.order - 1
        h = tuple(context[-n:]) if n else ()
        return (BOS,) * (n - len(h)) + h

    def probs(self, context: list[str]) -> list[float]:
        """Return P(id | context) for every id, the end last (it sums to 1)."""
        h = self.history(context)
        if h not in self._probs:
            lm, unseen = self.lm, max(self._known.count(False), 1)
            p = [(1 - lm.p_unk) * v if known else lm.p_unk / unseen
                 for v, known in zip(self._kn(lm.order, h), self._known)]
            total = sum(p)
            self._probs[h] = [x / total for x in p]
        return self._probs[h]

    def _kn(self, k: int, h: tuple[str, ...]) -> list[float]:
        """Return NGramLM._p(k, w, h) for every word w at once: the same formula, one history at a time."""
        if (k, h) not in self._vectors:
            lm = self.lm
            if k == 0:
                vec = [1.0 / (len(lm.vocab) - 1)] * len(self._known)
            else:
                total, lower = lm.context_total[k][h], self._kn(k - 1, h[1:])
                vec = lower
                if total:
                    g = lm.discount * lm.context_types[k][h] / total
                    vec = [g * x for x in lower]
                    for w in lm.followers[k].get(h, ()):
                        if w in self._ids:
                            i = self._ids[w]
                            vec[i] = max(lm.counts[k][h + (w,)] - lm.discount, 0) / total + g * lower[i]
            self._vectors[(k, h)] = vec
        return self._vectors[(k, h)]

    def sample(self, context: list[str], rng: random.Random) -> int:
        """Draw the next id from the model's own distribution (no mask)."""
        h = self.history(context)
        if h not in self._cumulative:
            self._cumulative[h] = list(itertools.accumulate(self.probs(context)))
        return rng.choices(range(self.end + 1), cum_weights=self._cumulative[h])[0]


def sample_masked(probs: list[float], allowed: typing.Iterable[int], rng: random.Random) -> int | None:
    """Draw an id from probs renormalised over the allowed ids; None if they carry no probability at all.

    Forbidden ids get -inf logits, i.e. probability 0, and the rest is divided by the mass it
    held, so it sums to 1 again (lecture 003, "Token masking").
    Example: probs [0.5, 0.3, 0.2], allowed {1, 2} -> 1 with probability 0.6, 2 with 0.4
    """
    ids = sorted(allowed)
    cumulative = list(itertools.accumulate(map(probs.__getitem__, ids)))
    if not ids or cumulative[-1] <= 0:
        return None
    return rng.choices(ids, cum_weights=cumulative)[0]  # draws r in [0, total): the division by the total


@dataclass
class Generation:
    """One sampled call: the tool, its tokens, whether a mask guided it, and why sampling stopped."""

    tool: str
    tokens: list[str]
    masked: bool
    stop: str  # "end" (the model wrote </s>), "max_tokens", or why masked sampling could not go on

    @property
    def text(self) -> str:
        """Return the call as written."""
        return "".join(self.tokens)


MAX_CALL_TOKENS = 64  # about twice the longest training call


def generate_call(model: CallModel, tool: str, rng: random.Random, masker: "TokenMasker | None" = None,
                  max_tokens: int = MAX_CALL_TOKENS) -> Generation:
    """Sample one call to `tool`, freely or under the masker's masks, until </s>, max_tokens or a dead end."""
    out = []
    if not model.vocab.tokens:
        return Generation(tool, out, masker is not None, "the vocabulary is empty: there is no token to write")
    context, config = [], masker.automaton.start() if masker else None
    for _ in range(max_tokens):
        if masker is None:
            i = model.sample(context, rng)
        else:
            allowed = masker.precomputed(config)[0]
            if masker.automaton.can_end(config):
                allowed = allowed | {model.end}
            if not allowed:
                return Generation(tool, out, True, f"dead end: no token of the vocabulary can follow {''.join(out)!r}")
            i = sample_masked(model.probs(context), allowed, rng)
            if i is None:
                return Generation(tool, out, True, "the model puts zero probability on every allowed token")
        if i == model.end:
            return Generation(tool, out, masker is not None, "end")
        token = model.vocab.tokens[i]
        config = step_text(config, token) if masker else None
        context.append(token)
        out.append(token)
    return Generation(tool, out, masker is not None, "max_tokens")


# ---------------------------------------------------------------------------------------------
# --- 13. From regex to finite automaton: 0|[1-9][0-9]* ---
# ---------------------------------------------------------------------------------------------

_CLASS = {str(d): "1-9" for d in range(1, 10)} | {"e": "e", "E": "e"}  # character -> the edge label it follows


@dataclass(eq=False)
class FiniteAutomaton:
    """A deterministic finite automaton: a start state, accepting states, and edges labelled by characters."""

    start: str
    accept: frozenset
    edges: dict  # state -> {label: next state}; a label is a character, or "1-9", or "e" for e and E

    def next(self, state: str, c: str) -> str | None:
        """Follow the edge for character c; None if there is none. Example: INTEGER.next("S", "4") -> "N\""""
        return self.edges.get(state, {}).get(_CLASS.get(c, c))

    def trace(self, text: str) -> tuple[list[str], bool]:
        """Return the states visited reading text (up to a missing edge) and whether text is accepted.

        Example: INTEGER.trace("007") -> (["S", "Z"], False)
        """
        states = [self.start]
        for c in text:
            nxt = self.next(states[-1], c)
            if nxt is None:
                return states, False
            states.append(nxt)
        return states, states[-1] in self.accept


_DIGITS = {"0": "N", "1-9": "N"}
INTEGER = FiniteAutomaton("S", frozenset("ZN"), {"S": {"0": "Z", "1-9": "N"}, "N": _DIGITS})  # the lecture's
JSON_INTEGER = FiniteAutomaton("S", frozenset("ZN"), {"S": {"-": "M", "0": "Z", "1-9": "N"},
                                                      "M": {"0": "Z", "1-9": "N"}, "N": _DIGITS})
_FRACTION, _EXPONENT = {"0": "F", "1-9": "F", "e": "X"}, {"0": "E", "1-9": "E"}
JSON_NUMBER = FiniteAutomaton("S", frozenset("ZNFE"), {  # JSON's number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    "S": {"-": "M", "0": "Z", "1-9": "N"}, "M": {"0": "Z", "1-9": "N"}, "Z": {".": "D", "e": "X"},
    "N": _DIGITS | {".": "D", "e": "X"}, "D": {"0": "F", "1-9": "F"}, "F": _FRACTION,
    "X": {"+": "Y", "-": "Y"} | _EXPONENT, "Y": _EXPONENT, "E": _EXPONENT})


def integer_trace(text: str) -> str:
    """Write the automaton's path through text. Example: '42' -> 'S -4-> N -2-> N  accepted'"""
    states, ok = INTEGER.trace(text)
    path = states[0] + "".join(f" -{c}-> {s}" for c, s in zip(text, states[1:]))
    if len(states) <= len(text):
        return f"{path} -{text[len(states) - 1]}-> ?  rejected: no edge"
    return f"{path}  {'accepted' if ok else 'rejected: not an accepting state'}"


# ---------------------------------------------------------------------------------------------
# --- 14. From JSON Schema to a deterministic pushdown automaton ---
# ---------------------------------------------------------------------------------------------

SCHEMA_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties", "items", "enum"})
ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment", "$schema"})  # they assert nothing
JSON_TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")


@dataclass(eq=False)
class SchemaNode:
    """One compiled (sub)schema: the JSON types it admits and what may stand inside them."""

    path: str
    types: frozenset
    enum: tuple | None  # the allowed values, each spelled as json.dumps writes it; None: any value of the types
    keys: dict  # '"name"' (a key as written, quotes included) -> its SchemaNode
    required: frozenset  # the required keys, as written
    items: "SchemaNode | None"


def schema_automaton(schema: dict, path: str = "#") -> SchemaNode:
    """Build the pushdown automaton's nodes for the tool-call subset of JSON Schema; refuse everything else.

    Supported: type (one or a list), properties, required, additionalProperties (false, or left
    out, which is read as false, as OpenAI's strict mode requires), items, enum (of scalars).
    Anything else raises ValueError naming the keyword: ignoring it would make the mask looser
    than the schema. Example: {"type": "integer", "minimum": 0} -> ValueError naming 'minimum'
    """
    if not isinstance(schema, dict):
        raise ValueError(f"{path}: a schema must be an object, got {tool_core.show(schema)}")
    unknown = sorted(set(schema) - SCHEMA_KEYWORDS - ANNOTATIONS)
    if unknown:
        raise ValueError(f"{path}: the keyword {unknown[0]!r} is not supported by the automaton (it reads "
                         f"{', '.join(sorted(SCHEMA_KEYWORDS))}); refusing the schema, since ignoring the keyword "
                         "would make the mask looser than the schema")
    types = schema.get("type", list(JSON_TYPES) if "enum" in schema else None)
    types = frozenset([types] if isinstance(types, str) else types or ())
    if not types or not types <= set(JSON_TYPES):
        raise ValueError(f"{path}: give \"type\" (one of {', '.join(JSON_TYPES)}, or a list of them) or \"enum\"; "
                         f"got type {tool_core.show(schema.get('type'))}")
    node = SchemaNode(path, types, None, {}, frozenset(), None)
    if "enum" in schema:
        node.enum = _enum_spellings(schema["enum"], types, path)
        return node
    if "object" in types:
        _compile_object(schema, node, path)
    if "array" in types:
        if "items" not in schema:
            raise ValueError(f"{path}: an array needs \"items\": the automaton must know what each item may be")
        node.items = schema_automaton(schema["items"], f"{path}/items")
    return node


def _compile_object(schema: dict, node: SchemaNode, path: str) -> None:
    if schema.get("additionalProperties", False) is not False:
        raise ValueError(f"{path}: additionalProperties must be false (or left out): the automaton writes only "
                         "the properties it knows")
    if not isinstance(schema.get("properties"), dict):
        raise ValueError(f"{path}: an object needs \"properties\": the automaton must know which keys it may write")
    missing = [r for r in schema.get("required", []) if r not in schema["properties"]]
    if missing:
        raise ValueError(f"{path}: required {missing} are not in properties, so no object could be valid")
    node.keys = {json.dumps(k): schema_automaton(sub, f"{path}/properties/{k}")
                 for k, sub in schema["properties"].items()}
    node.required = frozenset(json.dumps(k) for k in schema.get("required", []))


def _enum_spellings(values: list, types: frozenset, path: str) -> tuple[str, ...]:
    """Spell each enum value of the right type as JSON. Example: (["low", 2], {"string"}) -> ('"low"',)"""
    if not isinstance(values, list) or any(isinstance(v, (dict, list)) for v in values):
        raise ValueError(f"{path}: enum must be a list of strings, numbers, booleans or null")
    spelled = tuple(dict.fromkeys(json.dumps(v) for v in values if not tool_core.validate({"type": sorted(types)}, v)))
    if not spelled:
        raise ValueError(f"{path}: no value of the enum has the type {sorted(types)}, so nothing could be valid")
    return spelled


# A configuration is (top frame, rest of the stack), the rest being a configuration too: a linked
# stack, so a step copies nothing. The top frame is the automaton's state; below it lies what the
# automaton returns to when the value it reads is complete. Frames are tuples:
#   ("V", node)                         a value of node's schema starts here (one whitespace first is fine)
#   ("O", node, seen, phase, key)       inside an object; phase "{" just opened, "," after a comma,
#                                       "k" reading a key (key = (candidates, position)), ":" after key,
#                                       "v" after a value; seen: the keys written so far
#   ("A", node, phase)                  inside an array; phase "[", "," or "v", as for objects
#   ("S", escape)                       inside a string: 0 plain, -1 after a backslash, 4..1 hex digits to go
#   ("L", candidates, position)         partway through one of some literals (an enum value, true, null)
#   ("N", automaton, state)             inside a number, read by a finite automaton
#   ("E",)                              the whole value is read: the stack is empty
# A frame that has just read a whitespace character carries a trailing " " and takes no more.
# Why a stack, why not a finite automaton: after [[[[ the automaton must remember four closing
# brackets. With a fixed number of states some depth is always too deep; a stack grows.
_WS = frozenset(" \t\n\r")  # subtle: sets, not strings, so that "" (the end of the text) is in none of them
_HEX, _ESCAPES, _NUMBER_START = frozenset("0123456789abcdefABCDEF"), frozenset('"\\/bfnrt'), frozenset("-0123456789")
_IN_STRING, _ESCAPE, _END = ("S", 0), ("S", -1), ("E",)
HOLE = (("?",), None)  # the unknown stack below a state, when a state's tokens are precomputed
DEPENDS = (("!",), None)  # what a step returns when it had to look below the hole
_FOLLOW = frozenset(",}]")  # what may follow a value and its whitespace in any parent (XGrammar's context expansion)
Config = tuple  # (frame, Config | None)


def step(config: Config, c: str) -> Config | None:
    """Read one character ("" = the end of the text); return the next configuration, or None if c cannot come next."""
    frame, below = config
    return _MOVES[frame[0]](frame, below, c)


def step_text(config: Config, text: str) -> Config | None:
    """Read every character of text. Example: (start, '{"a') -> inside the key, or None if no key starts with a"""
    for c in text:
        config = step(config, c)
        if config is None:
            return None
    return config


def _space(frame, below):
    """Read one whitespace character: at most one in a row, so that a model cannot pad forever."""
    return None if frame[-1] == " " else (frame + (" ",), below)


def _value(frame, below, c):
    node = frame[1]
    if c in _WS:
        return _space(frame, below)
    if node.enum is not None:
        return _literal(tuple(t for t in node.enum if t[0] == c), 1, below)
    types = node.types
    if c == "{" and "object" in types:
        return ("O", node, frozenset(), "{", None), below
    if c == "[" and "array" in types:
        return ("A", node, "["), below
    if c == '"' and "string" in types:
        return _IN_STRING, below
    if c in _NUMBER_START and ("integer" in types or "number" in types):
        fa = JSON_NUMBER if "number" in types else JSON_INTEGER
        return ("N", fa, fa.next(fa.start, c)), below
    words = ("true", "false") * ("boolean" in types) + ("null",) * ("null" in types)
    return _literal(tuple(w for w in words if w[0] == c), 1, below)


def _literal(candidates: tuple, pos: int, below):
    """Stand `pos` characters into some literals: pop at once when every one is complete."""
    if not candidates:
        return None
    if all(len(t) == pos for t in candidates):
        return below
    return ("L", candidates, pos), below


def _literal_frame(frame, below, c):
    _, candidates, pos = frame
    longer = tuple(t for t in candidates if len(t) > pos and t[pos] == c)
    if longer:
        return _literal(longer, pos + 1, below)
    if any(len(t) == pos for t in candidates):  # 1 of enum [1, 12] is complete: c belongs to what follows
        return step(below, c)
    return None


def _object(frame, below, c):
    node, seen, phase, key = frame[1:5]
    if phase == "k":
        candidates, pos = key
        more = tuple([k for k in candidates if k[pos] == c])
        if not more:
            return None
        if len(more[0]) == pos + 1:  # the closing quote: keys are distinct JSON strings, so just one ends here
            return ("O", node, seen | {more[0]}, ":", more[0]), below
        return ("O", node, seen, "k", (more, pos + 1)), below
    if c in _WS:
        return _space(frame, below)
    if phase == ":":
        return (("V", node.keys[key]), (("O", node, seen, "v", None), below)) if c == ":" else None
    if c == '"' and phase in "{,":
        candidates = tuple(k for k in node.keys if k not in seen)
        return (("O", node, seen, "k", (candidates, 1)), below) if candidates else None
    if c == "," and phase == "v" and len(seen) < len(node.keys):
        return ("O", node, seen, ",", None), below
    if c == "}" and phase in "{v" and node.required <= seen:
        return below
    return None


def _array(frame, below, c):
    node, phase = frame[1], frame[2]
    if c in _WS:
        return _space(frame, below)
    if phase == "v":
        if c == ",":
            return ("A", node, ","), below
        return below if c == "]" else None
    if c == "]" and phase == "[":
        return below
    return step((("V", node.items), (("A", node, "v"), below)), c)


def _string(frame, below, c):
    escape = frame[1]
    if escape == 0:
        if c == '"':
            return below
        if c == "\\":
            return _ESCAPE, below
        return (frame, below) if c >= " " else None  # a control character must be escaped; "" is the end
    if escape == -1:
        if c == "u":
            return ("S", 4), below
        return (_IN_STRING, below) if c in _ESCAPES else None
    return ((("S", escape - 1) if escape > 1 else _IN_STRING), below) if c in _HEX else None


def _number(frame, below, c):
    _, fa, state = frame
    nxt = fa.next(state, c)
    if nxt is not None:
        return ("N", fa, nxt), below
    return step(below, c) if state in fa.accept else None  # the number ended: c belongs to what follows


def _after_value(frame, below, c):
    """Read c below the hole: after a value every parent takes one whitespace; , } ] and the end depend on which."""
    if c in _WS:
        return _space(frame, below)
    return DEPENDS if c in _FOLLOW or c == "" else None


_MOVES = {"V": _value, "O": _object, "A": _array, "S": _string, "L": _literal_frame, "N": _number,
          "E": lambda frame, below, c: _space(frame, below) if c in _WS else (frame, below) if c == "" else None,
          "?": _after_value}

_ALPHABET = "".join(BASE_CHARACTERS) + "\t\n\r"


class SchemaAutomaton:
    """A deterministic pushdown automaton over characters that accepts the JSON texts of the values a schema admits.

    Why a pushdown automaton and not a finite one: to close n brackets it must remember n, and a
    fixed number of states runs out at some nesting depth; the stack grows with the nesting.
    The layout it reads: at most one whitespace character between tokens (json.dumps writes one;
    Outlines' default is [ ]? too, because small models otherwise loop on whitespace), and
    properties in any order (the frame keeps the keys written so far; "}" waits for the required
    ones). What it accepts, json.loads parses and tool_core.validate accepts. It is stricter than
    the schema, never looser: keys and enum values spelled as json.dumps spells them, each key at
    most once, only declared properties, integers without a fraction or exponent (JSON Schema
    also counts 5.0 and 5e0). Deterministic: for every state, character and stack top at most one
    move (a number or literal that ends hands the character to the frame below without reading
    it, and no other move competes with that one). Not checked: a number too large for a
    float (1e999), which Python reads as inf.
    """

    def __init__(self, schema: dict):
        self.schema, self.root = schema, schema_automaton(schema)

    def __repr__(self) -> str:
        """Say what it accepts: the schema's type and, for an object, its properties ('?' = optional)."""
        kind = self.schema.get("type", "any value") if isinstance(self.schema, dict) else "any value"
        fields = tool_core.parameter_list(self.schema)
        return f"SchemaAutomaton(accepts JSON texts of: {kind}{f' ({fields})' if fields else ''})"

    def start(self) -> Config:
        """Return the first configuration: a value of the root schema, with the end below it."""
        return ("V", self.root), (_END, None)

    def can_end(self, config: Config) -> bool:
        """Say whether the text read so far is complete: the end of the text may come now."""
        done = step(config, "")
        return done is not None and done[0][0] == "E"

    def accepts(self, text: str) -> bool:
        """Say whether text is a JSON text whose value the schema admits (in the layouts above)."""
        config = step_text(self.start(), text)
        return config is not None and self.can_end(config)

    def allowed_next(self, prefix: str) -> str:
        """Return the characters (printable ASCII and JSON whitespace) that may follow prefix; "" if none.

        Example: PERSON_SCHEMA, '{"name":"Ann","age":4' -> '\\t\\n\\r 0123456789}' with no comma: both keys are written
        """
        config = step_text(self.start(), prefix)
        if config is None:
            raise ValueError(f"{prefix!r} is not the start of any valid output")
        return "".join(sorted(c for c in _ALPHABET if step(config, c) is not None))


def stack_text(config: Config) -> str:
    """Show the open brackets on the stack, outermost first. Example: inside {"a": [1 -> '{['"""
    out = []
    while config is not None:
        out.append({"O": "{", "A": "["}.get(config[0][0], ""))
        config = config[1]
    return "".join(reversed(out))


def expectation(config: Config) -> str:
    """Say in words what the automaton expects next, from its top frame."""
    frame = config[0]
    kind = frame[0]
    if kind == "V":
        return "a value: " + _node_text(frame[1])
    if kind == "O":
        return _object_expectation(*frame[1:])
    if kind == "A":
        return {"[": "an item or ]", ",": "an item", "v": ", or ]"}[frame[2]]
    if kind == "S":
        return "more of the string, or the quote that ends it"
    if kind == "N":
        return "more digits, or what may follow the number"
    if kind == "L":
        return "the rest of " + " or ".join(frame[1])
    return "the end of the text: the stack is empty"


def _object_expectation(node: SchemaNode, seen: frozenset, phase: str, key) -> str:
    if phase == "k":
        return "the rest of the key " + " or ".join(key[0])
    if phase == ":":
        return f": then the value of {key}"
    unseen = f"a key ({' or '.join(k for k in node.keys if k not in seen)})"
    can_close = node.required <= seen
    if phase == "v":
        return ", or }" if can_close and len(seen) < len(node.keys) else "}" if can_close else ","
    return unseen + (" or }" if phase == "{" and can_close else "")


def _node_text(node: SchemaNode) -> str:
    if node.enum is not None:
        return "one of " + ", ".join(node.enum)
    return " or ".join(("an " if t[0] in "aio" else "a ") + t for t in JSON_TYPES if t in node.types)


# ---------------------------------------------------------------------------------------------
# --- 15. Token masks, and three ways to compute them ---
# ---------------------------------------------------------------------------------------------

def mask(state: Config, vocabulary: list[str]) -> frozenset[int]:
    """Return the ids of the tokens t for which the text read so far + t is still the start of some valid output.

    The definition, checked token by token; TokenMasker computes the same set three ways.
    Example: PERSON_SCHEMA after '{"name":"Ann","age":', ['"', '4', '42', '}', 'null'] -> {1, 2} (the lecture's 01100)
    """
    return mask_naive(state, vocabulary)[0]


def mask_naive(config: Config, tokens: list[str]) -> tuple[frozenset[int], int]:
    """Method 1: walk the automaton over every token; return the mask and the automaton steps taken."""
    allowed, steps = walk_tokens(config, tokens, range(len(tokens)))
    return frozenset(allowed), steps


def walk_tokens(config: Config, tokens: list[str], ids: typing.Iterable[int]) -> tuple[list[int], int]:
    """Walk each token of ids from config up to its first refused character; return the ids that pass, and the steps."""
    allowed, steps = [], 0
    for i in ids:
        state = config
        for c in tokens[i]:
            steps += 1
            state = step(state, c)
            if state is None:
                break
        else:
            allowed.append(i)
    return allowed, steps


def build_trie(tokens: list[str]) -> dict:
    """Build the vocabulary's prefix tree: character -> (child tree, ids of the tokens that end there).

    Example: ['4', '42', '42}'] -> {'4': ({'2': ({'}': ({}, [2])}, [1])}, [0])}
    """
    root: dict = {}
    for i, token in enumerate(tokens):
        node = root
        for k, c in enumerate(token):
            child, ends = node.setdefault(c, ({}, []))
            if k == len(token) - 1:
                ends.append(i)
            node = child
    return root


def mask_trie(config: Config, trie: dict) -> tuple[frozenset[int], int]:
    """Method 2: walk the prefix tree once; a prefix that fails prunes every token below it."""
    allowed, steps, todo = [], 0, [(trie, config)]
    while todo:
        node, state = todo.pop()
        for c, (child, ends) in node.items():
            steps += 1
            nxt = step(state, c)
            if nxt is not None:
                allowed += ends
                if child:
                    todo.append((child, nxt))
    return frozenset(allowed), steps


def _below(node: dict) -> list[int]:
    """Return the ids of every token in a subtree of the prefix tree."""
    out = []
    for child, ends in node.values():
        out += ends
        out += _below(child)
    return out


def split_tokens(frame: tuple, trie: dict) -> tuple[frozenset[int], tuple[int, ...], int, list[tuple]]:
    """Sort a state's tokens with the stack below unknown: allowed by the state alone, or depending on the stack.

    A token is context-dependent when the state's value ends partway through it and the rest
    must be read by a frame further down ('"}' inside a string). A token that ends exactly where
    the value ends ('"') is decided by the state. Returns the allowed ids, the dependent ids,
    the automaton steps taken and the frames met on the way (new states for the table).
    """
    allowed, dependent, steps, met, todo = [], [], 0, [], [(trie, (frame, HOLE))]
    while todo:
        node, state = todo.pop()
        for c, (child, ends) in node.items():
            steps += 1
            nxt = step(state, c)
            if nxt is None:
                continue
            if nxt is DEPENDS:
                dependent += ends + _below(child)
                continue
            allowed += ends
            below = nxt
            while below[0][0] != "?":
                met.append(below[0])
                below = below[1]
            if child:
                todo.append((child, nxt))
    return frozenset(allowed), tuple(sorted(dependent)), steps, met


class TokenMasker:
    """A vocabulary's masks under a schema automaton, computed three ways that give the same set (XGrammar, section 3).

    At construction, the grammar's compile time, every state the vocabulary's characters reach
    from the start is split (split_tokens) into a ready mask of the tokens it decides alone and
    the few tokens that depend on the stack; at each step, method 3 looks its state up and walks
    only those few. A state first met at run time (a vocabulary whose tokens reach it only across
    a pop) is split then and kept.
    """

    def __init__(self, automaton: SchemaAutomaton, tokens: list[str]):
        self.automaton, self.tokens = automaton, list(tokens)
        self.trie = build_trie(self.tokens)
        self.table: dict[tuple, tuple[frozenset[int], tuple[int, ...]]] = {}
        self.compile_steps = 0
        todo = [automaton.start()[0], _END]
        while todo:
            frame = todo.pop()
            if frame not in self.table:
                todo += self._split(frame)

    def __repr__(self) -> str:
        """Say the vocabulary size, how many states have a ready mask and what computing them cost."""
        return (f"TokenMasker({len(self.tokens):,} tokens, {len(self.table):,} states with a ready mask "
                f"({self.compile_steps:,} automaton steps to compile), for {self.automaton!r})")

    def _split(self, frame: tuple) -> list[tuple]:
        allowed, dependent, steps, met = split_tokens(frame, self.trie)
        self.table[frame] = (allowed, dependent)
        self.compile_steps += steps
        return met

    def naive(self, config: Config) -> tuple[frozenset[int], int]:
        """Method 1: every token walked on its own."""
        return mask_naive(config, self.tokens)

    def prefix_tree(self, config: Config) -> tuple[frozenset[int], int]:
        """Method 2: the vocabulary's prefix tree walked once."""
        return mask_trie(config, self.trie)

    def precomputed(self, config: Config) -> tuple[frozenset[int], int]:
        """Method 3: the state's ready mask, plus the context-dependent tokens the real stack lets through."""
        if config[0] not in self.table:
            self._split(config[0])
        allowed, dependent = self.table[config[0]]
        extra, steps = walk_tokens(config, self.tokens, dependent)
        return (allowed.union(extra) if extra else allowed), steps


# ---------------------------------------------------------------------------------------------
# --- 16. Grading calls, and what masking does not give ---
# ---------------------------------------------------------------------------------------------

_JSON_FAILURES = [  # (what json's message says, the lecture's name for it)
    ("Expecting property name", "extra comma"), ("Illegal trailing comma", "extra comma"),  # Python 3.13's words
    ("Expecting ',' delimiter", "missing comma"),
    ("Expecting ':' delimiter", "missing colon"), ("Expecting value", "no value where one must stand"),
    ("extra text after", "extra text after the object"), ("appears twice", "a key written twice")]
_SCHEMA_FAILURES = [("expected integer, got string", "a string where an integer belongs"),
                    ("missing required", "a required property missing"),
                    ("unexpected propert", "a property the tool does not have"),
                    ("expected one of", "a value outside the enum")]


def _parses(text: str) -> bool:
    """Say whether tool_core's strict JSON reader accepts text."""
    try:
        tool_core.loads_strict(text)
        return True
    except ValueError:
        return False


def call_problems(tool: str, parameters: dict, text: str) -> list[str]:
    """Grade written arguments with tool_core's parser, then validate; return their problems ([] = a valid call).

    The harness writes the call around them: <tool_call>{"name": tool, "arguments": text}</tool_call>.
    Broken JSON is one problem (a missing comma that one more } would mend is a missing brace);
    valid JSON gets one problem per kind of validate error.
    Example: ('add_person', PERSON_SCHEMA, '{"name": "Ann", "age": "42"}')
    -> ['schema: a string where an integer belongs']
    """
    parsed = tool_core.parse_tool_calls(f'{tool_core.OPEN}{{"name": "{tool}", "arguments": {text}}}{tool_core.CLOSE}')
    if parsed.errors:
        error = parsed.errors[0]
        if error.kind != "invalid_json":
            return [{"truncated": "JSON: cut short (a quote missing)"}.get(error.kind, "JSON: arguments not an object")]
        if "Expecting ',' delimiter" in error.message and _parses(text + "}"):
            return ["JSON: missing brace"]
        return ["JSON: " + next((name for says, name in _JSON_FAILURES if says in error.message), "other invalid JSON")]
    errors = tool_core.validate(parameters, parsed.calls[0].arguments)
    names = ("schema: " + next((name for says, name in _SCHEMA_FAILURES if says in e), "other schema error")
             for e in errors)
    return list(dict.fromkeys(names))


# Grammar-Aligned Decoding's example (Park et al., 2024; lecture 003): two tokens, answers ab and cd valid.
GAD_MODEL = {"": {"a": Fraction(9, 10), "c": Fraction(1, 10)}, "a": {"b": Fraction(1, 100), "x": Fraction(99, 100)},
             "c": {"d": Fraction(1)}}
GAD_VALID = ("ab", "cd")


def gad_allowed(prefix: str, valid: tuple[str, ...] = GAD_VALID) -> list[str]:
    """Return the next tokens after which some valid answer can still follow. Example: 'a' -> ['b']"""
    return sorted({v[len(prefix)] for v in valid if v.startswith(prefix) and len(v) > len(prefix)})


def masked_answer_distribution(model: dict = GAD_MODEL, valid: tuple[str, ...] = GAD_VALID) -> dict[str, Fraction]:
    """Return exactly how often the masked sampler gives each answer: at each step, renormalise over the mask."""
    out, todo = {}, [("", Fraction(1))]
    while todo:
        prefix, p = todo.pop()
        if prefix in valid:
            out[prefix] = out.get(prefix, Fraction(0)) + p
            continue
        allowed = gad_allowed(prefix, valid)
        total = sum(model[prefix][t] for t in allowed)
        todo += [(prefix + t, p * model[prefix][t] / total) for t in allowed]
    return dict(sorted(out.items()))


def valid_answer_distribution(model: dict = GAD_MODEL, valid: tuple[str, ...] = GAD_VALID) -> dict[str, Fraction]:
    """Return the model's own distribution given a valid answer: P(answer) / P(some valid answer)."""
    p = {v: math.prod(model[v[:k]][v[k]] for k in range(len(v))) for v in valid}
    return {v: p[v] / sum(p.values()) for v in sorted(valid)}


def sample_answers(rng: random.Random, n: int, masked: bool, model: dict = GAD_MODEL,
                   valid: tuple[str, ...] = GAD_VALID) -> Counter:
    """Draw n valid answers: with the mask (sample_masked at each step), or from the model alone, keeping valid ones."""
    steps = {}  # prefix -> (next tokens, their probabilities, the ids the mask allows)
    for prefix, dist in model.items():
        tokens = sorted(dist)
        steps[prefix] = (tokens, [float(dist[t]) for t in tokens],
                         [k for k, t in enumerate(tokens) if t in gad_allowed(prefix, valid)])
    found, kept = Counter(), 0
    while kept < n:
        prefix = ""
        while prefix in steps and prefix not in valid:
            tokens, probs, allowed = steps[prefix]
            prefix += tokens[sample_masked(probs, allowed, rng)] if masked else rng.choices(tokens, probs)[0]
        if prefix in valid:
            found[prefix], kept = found[prefix] + 1, kept + 1
    return found


# ---------------------------------------------------------------------------------------------
# --- 17. Demos for scripts/08_constrained_decoding.py ---
# ---------------------------------------------------------------------------------------------

@dataclass
class ConstrainedLab:
    """What the demos share: the tools, the vocabulary, the model, and one automaton and masker per tool."""

    seed: int
    slips: float
    tools: dict[str, dict]
    calls: list[tuple[str, str]]  # (tool, arguments) the models learned from
    vocab: Vocabulary
    models: dict[str, CallModel]
    automata: dict[str, SchemaAutomaton]
    maskers: dict[str, TokenMasker]

    def __repr__(self) -> str:
        """Say the knobs and the sizes: tools, training calls, vocabulary, n-gram order."""
        order = next(iter(self.models.values())).lm.order if self.models else 0
        return (f"ConstrainedLab(seed={self.seed}, slips={self.slips}, {len(self.tools)} tools: "
                f"{tool_core.name_list(self.tools, 60)}; {len(self.calls):,} training calls, "
                f"{len(self.vocab.tokens):,} tokens, order-{order} n-grams)")

    def _repr_markdown_(self) -> str:
        """Show one row per tool: its parameters, training calls, n-grams and the masker's ready states."""
        rows = [[tool, tool_core.parameter_list(schema), sum(1 for t, _ in self.calls if t == tool),
                 f"{len(self.models[tool].lm.counts[self.models[tool].lm.order]):,}", len(self.maskers[tool].table)]
                for tool, schema in self.tools.items()]
        return tool_core.markdown_block(
            tool_core.markdown_cell(repr(self)),
            tool_core.markdown_table(["tool", "parameters (? = optional)", "training calls", "distinct n-grams",
                                      "states with a ready mask"], rows))


def constrained_lab(seed: int = 0, calls_per_tool: int = 100, slips: float = 0.15, order: int = 4) -> ConstrainedLab:
    """Write the training calls, learn the vocabulary, fit one n-gram per tool, compile each tool's schema."""
    rng = random.Random(seed)
    tools = call_tools()
    calls = [(tool, training_arguments(tool, rng, slips)) for _ in range(calls_per_tool) for tool in tools]
    vocab = train_bpe(LAB_PROSE + [text for _, text in calls])
    models = {tool: CallModel(NGramLM(order).fit([vocab.encode(text) for t, text in calls if t == tool]), vocab)
              for tool in tools}
    automata = {tool: SchemaAutomaton(p) for tool, p in tools.items()}
    return ConstrainedLab(seed, slips, tools, calls, vocab, models, automata,
                          {tool: TokenMasker(a, vocab.tokens) for tool, a in automata.items()})


def generate_calls(lab: ConstrainedLab, n: int, masked: bool, seed: int) -> list[Generation]:
    """Sample n calls, the tools taken in turn, each with random.Random(seed)."""
    rng, tools = random.Random(seed), list(lab.tools)
    return [generate_call(lab.models[tool], tool, rng, lab.maskers[tool] if masked else None)
            for tool in (tools[k % len(tools)] for k in range(n))]


def _percent(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def stop_sentence(stops: Counter) -> str:
    """Say in words how the masked calls ended, from their Generation.stop counts.

    Example: Counter({"end": 149, "max_tokens": 1}) -> 'How the 150 masked calls ended: 149 with the model's own
    end-of-call token (the mask offers it only once the call is complete); 1 at the 64-token limit, cut off.'
    """
    words = {"end": "with the model's own end-of-call token (the mask offers it only once the call is complete)",
             "max_tokens": f"at the {MAX_CALL_TOKENS}-token limit, cut off"}
    if len(stops) == 1 and next(iter(stops)) in words:
        (why, n), = stops.items()
        return f"All {n} masked calls ended {words[why]}."
    parts = [f"{n} {words.get(why, f'stopped ({why})')}"
             for why, n in sorted(stops.items(), key=lambda kv: (-kv[1], kv[0]))]
    return f"How the {sum(stops.values())} masked calls ended: {'; '.join(parts)}."


@tool_core.preformatted
def demo_free_vs_masked(lab: ConstrainedLab, samples: int = 150) -> str:
    """Sample calls with and without the mask; grade them with tool_core's parser and validate; name the failures."""
    graded = {}
    for masked in (False, True):
        gens = generate_calls(lab, samples, masked, lab.seed + 1 + masked)
        graded[masked] = [(g, call_problems(g.tool, lab.tools[g.tool], g.text)) for g in gens]
    rows = []
    for tool in list(lab.tools) + ["all"]:
        row = [tool, sum(tool in (g.tool, "all") for g, _ in graded[False])]
        for masked in (False, True):
            mine = [problems for g, problems in graded[masked] if tool in (g.tool, "all")]
            row += [_percent(sum(not p or p[0].startswith("schema") for p in mine), len(mine)),
                    _percent(mine.count([]), len(mine))]
        rows.append(row)
    share = {(masked, strict): [100 * sum(not p or (not strict and p[0].startswith("schema"))
                                          for g, p in graded[masked] if tool in (g.tool, "all"))
                                / sum(tool in (g.tool, "all") for g, _ in graded[masked]) for tool in [*lab.tools, "all"]]
             for masked in (False, True) for strict in (False, True)}
    tool_core.record(tool_core.Chart(
        "08_free_vs_masked", "Sampled tool calls that parse and validate, without and with the mask", "tool",
        f"% of the tool's calls ({samples} in all)", [*lab.tools, "all"],
        [("free: valid JSON", share[False, False]), ("free: schema-valid", share[False, True]),
         ("masked: valid JSON", share[True, False]), ("masked: schema-valid", share[True, True])],
        f"scripts/08_constrained_decoding.py, demo 1: toolformer_lab.demo_free_vs_masked (seed {lab.seed})", y_max=100))
    kinds, example = Counter(), {}
    for g, problems in graded[False]:
        kinds.update(problems)
        example.update({p: g.text for p in problems if len(g.text) < len(example.get(p, g.text + " "))})
    fails = [[kind, n, example[kind]] for kind, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))]
    stops = Counter(g.stop for g, _ in graded[True])
    return "\n".join([
        f"One {lab.models['add_person'].lm.order}-gram per tool over the {len(lab.vocab.tokens)}-token vocabulary, "
        f"trained on {len(lab.calls) // len(lab.tools)} calls each ({lab.slips:.0%} of them with one slip: "
        f"{', '.join(SLIPS)}).",
        f"{samples} calls sampled without the mask and {samples} with it (random.Random({lab.seed + 1}) and "
        f"({lab.seed + 2})), graded by tool_core.parse_tool_calls, then validate:",
        tool_core.format_table(["tool", "calls", "free: valid JSON", "schema-valid", "masked: valid JSON",
                                "schema-valid"], rows),
        "Lecture 003 (XGrammar's figure for a real model): 62% valid JSON without the mask, 100% with it.",
        stop_sentence(stops),
        "",
        "What went wrong in the free calls (a call may show several schema problems):",
        tool_core.format_table(["problem", "calls", "shortest example"], fails) if fails else "  nothing"])


@tool_core.preformatted
def demo_integer_automaton() -> str:
    """Show the regex 0|[1-9][0-9]* as the lecture's finite automaton, and its traces on five strings."""
    rows = [[text, integer_trace(text)] for text in ("42", "0", "2025", "007", "4a")]
    return "\n".join([
        "0|[1-9][0-9]* as a finite automaton: start S, accepting Z and N.",
        "  S -0-> Z      S -1..9-> N      N -0..9-> N      (Z has no edges: nothing may follow a leading 0)",
        tool_core.format_table(["text", "trace"], rows)])


def mask_text(chars: str) -> str:
    """Write a set of characters briefly, in words. Example: ' 0123456789}' -> '0-9 } or white space'"""
    shown = "".join(c for c in chars if c not in _WS).replace("0123456789", "\0").replace("123456789", "\1")
    if len(shown) > 40:
        missing = "".join(c for c in BASE_CHARACTERS if c not in chars)
        text = "any character" + (f" but {missing}" if missing else "")
    else:
        text = " ".join(shown).replace("\0", "0-9").replace("\1", "1-9")
    if set(chars) & _WS:  # space, tab, newline, return: JSON allows any of them between tokens
        return f"{text} or white space" if text else "white space"
    return text or "nothing"


_LEXEME = re.compile(r'\s*(?:"(?:[^"\\]|\\.)*"|[-+.0-9eE]+|[a-z]+|.)\s*[:,]?')  # a key or value, with its : or ,


def walk_table(automaton: SchemaAutomaton, text: str) -> tuple[list[list], bool]:
    """Walk text a lexeme at a time; return the lecture's table and the verdict.

    Columns: step, what was read (and the stack move), the stack, what is expected now, what the mask lets through.
    """
    config = automaton.start()
    rows = [[0, "", "(empty)", expectation(config), mask_text(automaton.allowed_next(""))]]
    for k, m in enumerate(_LEXEME.finditer(text), 1):
        before = stack_text(config)
        for at, c in enumerate(m.group(), m.start()):
            nxt = step(config, c)
            if nxt is None:
                rows.append([k, m.group(), before or "(empty)", f"rejected at {c!r}: the mask allows only "
                             f"{mask_text(automaton.allowed_next(text[:at]))}", "-"])
                return rows, False
            config = nxt
        after = stack_text(config)
        move = (f" (push {after[-1]})" if len(after) > len(before) else
                f" (pop {before[-1]})" if len(after) < len(before) else "")
        rows.append([k, m.group() + move, after or "(empty)", expectation(config),
                     mask_text(automaton.allowed_next(text[:m.end()]))
                     + (", or the end of the text" if automaton.can_end(config) else "")])
    return rows, automaton.can_end(config)


@tool_core.preformatted
def demo_pushdown() -> str:
    """Compile the lecture's schema, walk {"name":"Ann","age":42} step by step, and reject "age":"42" at its quote."""
    automaton = SchemaAutomaton(PERSON_SCHEMA)
    header = ["step", "read", "stack", "now expects", "the mask lets through"]
    good, ok = walk_table(automaton, '{"name":"Ann","age":42}')
    bad, bad_ok = walk_table(automaton, '{"name":"Ann","age":"42"}')
    return "\n".join([
        f"Schema: {json.dumps(PERSON_SCHEMA)}",
        "A deterministic pushdown automaton = a finite automaton + a stack: each move depends on the state, the next "
        "character and the top of the stack; in every situation at most one move.",
        "",
        tool_core.format_table(header, good),
        f"-> {'accepted' if ok else 'rejected'}",
        "",
        '{"name":"Ann","age":"42"}, the same up to step 4:',
        tool_core.format_table(header, bad[-2:]),
        f"-> {'accepted' if bad_ok else 'rejected'}: valid JSON, but the schema wants an integer.",
        "Why not a finite automaton: to close n brackets it must remember n; a fixed number of states runs out at "
        "some depth, a stack does not."])


MASK_STEP_PREFIX = '{"name": "Ann", "age":'  # the lecture's "output so far"
LECTURE_MASK_TOKENS = ['"', "4", "42", "}", "null"]


def _probability(p: float) -> str:
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


@tool_core.preformatted
def demo_mask_step(lab: ConstrainedLab) -> str:
    """One masked step after "age": the model's probabilities, the mask, -inf, the renormalised softmax, the sample."""
    tokens, masker = lab.vocab.tokens, lab.maskers["add_person"]
    written = lab.vocab.encode(MASK_STEP_PREFIX)
    probs = lab.models["add_person"].probs(written)
    allowed = masker.precomputed(step_text(masker.automaton.start(), MASK_STEP_PREFIX))[0]
    kept = sum(probs[i] for i in allowed)
    shown = [tokens.index(t) for t in LECTURE_MASK_TOKENS if t in tokens]
    shown += sorted((i for i in range(len(tokens)) if i not in shown), key=lambda i: (-probs[i], i))[:4]
    rows = [[repr(tokens[i]), f"{math.log(probs[i]):.2f}", _probability(probs[i]), int(i in allowed)]
            + ([f"{math.log(probs[i]):.2f}", _probability(probs[i] / kept)] if i in allowed else ["-inf", "0"])
            for i in shown]
    pick = sample_masked(probs, allowed, random.Random(lab.seed))
    return "\n".join([
        f"Output so far: {MASK_STEP_PREFIX}   (the schema wants an integer)",
        f"The mask lets {len(allowed)} of {len(tokens)} tokens through; shown: the lecture's tokens that are in the "
        "vocabulary, then the model's most likely others (the lecture's 42 is ' 42' here: json.dumps writes a space "
        "after the colon).",
        tool_core.format_table(["token", "logit (ln P)", "P", "mask", "masked logit", "P after mask"], rows),
        f"The allowed tokens held {kept:.4f} of the probability; dividing by it makes them sum to 1 again.",
        f"Sampled (random.Random({lab.seed})): {tokens[pick]!r}"])


LECTURE_TRIE_TOKENS = ['"', '"ab', '"x', "0", "01", "0}", "1", "12", "1.", "4", "42", "42}", "null", "true"]
AGE_SCHEMA = {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]}


COST_CALLS = 6  # masked calls whose every step demo 5 masks three ways


def mask_costs(lab: ConstrainedLab) -> dict:
    """Compute the three masks at every step of COST_CALLS masked calls; return the configurations, steps, equality."""
    configs = []
    for g in generate_calls(lab, COST_CALLS, True, lab.seed + 3):
        config = lab.maskers[g.tool].automaton.start()
        for token in g.tokens:
            configs.append((g.tool, config))
            config = step_text(config, token)
    steps, same = Counter(), True
    for tool, config in configs:
        m = lab.maskers[tool]
        masks = [method(config) for method in (m.naive, m.prefix_tree, m.precomputed)]
        same &= masks[0][0] == masks[1][0] == masks[2][0]
        for k, (_, n) in enumerate(masks):
            steps[k] += n
    return {"configs": configs, "steps": steps, "same": same}


def _milliseconds(lab: ConstrainedLab, configs: list, method: str) -> float:
    """Time one mask method over the configurations (wall clock, so it varies by machine)."""
    began = time.perf_counter()
    for tool, config in configs:
        getattr(lab.maskers[tool], method)(config)
    return (time.perf_counter() - began) * 1000 / len(configs)


def _compile_milliseconds(lab: ConstrainedLab) -> float:
    """Time compiling the three tools' maskers again (wall clock)."""
    began = time.perf_counter()
    for automaton in lab.automata.values():
        TokenMasker(automaton, lab.vocab.tokens)
    return (time.perf_counter() - began) * 1000


@tool_core.preformatted
def demo_mask_cost(lab: ConstrainedLab, timings: bool = False) -> str:
    """Count automaton steps (with timings, milliseconds too) per mask for the three methods; the lecture's example."""
    toy = TokenMasker(SchemaAutomaton(AGE_SCHEMA), LECTURE_TRIE_TOKENS)
    at = step_text(toy.automaton.start(), '{"age":')
    (naive, n_steps), (trie, t_steps) = toy.naive(at), toy.prefix_tree(at)
    costs = mask_costs(lab)
    configs, steps, size = costs["configs"], costs["steps"], len(lab.vocab.tokens)
    ms = [_milliseconds(lab, configs, name) for name in ("naive", "prefix_tree", "precomputed")] if timings else []
    rows = []
    for k, label in enumerate(["1. naive: every token on its own", "2. prefix tree, walked once",
                               "3. precomputed per state + dependent tokens"]):
        rows.append([label, f"{steps[k] / len(configs):.1f}", f"{steps[0] / steps[k]:.1f}x"]
                    + ([f"{ms[k]:.4f}", f"{ms[0] / ms[k]:.1f}x"] if timings else []))
    dependent = [len(lab.maskers[tool].table[c[0]][1]) for tool, c in configs]
    states = sum(len(m.table) for m in lab.maskers.values())
    compile_steps = sum(m.compile_steps for m in lab.maskers.values())
    in_string = len(lab.maskers["add_person"].table[_IN_STRING][1])
    compiled = f" ({_compile_milliseconds(lab):.0f} ms)." if timings else "."
    return "\n".join([
        f"The lecture's example: after {{\"age\": an integer is expected; 14 tokens: {' '.join(LECTURE_TRIE_TOKENS)}",
        f"  allowed: {' '.join(toy.tokens[i] for i in sorted(naive))}; each token on its own: {n_steps} automaton "
        f"steps; the prefix tree: {t_steps} (same mask: {naive == trie}).",
        "",
        f"On the lab's {size}-token vocabulary, at all {len(configs)} steps of {COST_CALLS} masked calls:",
        tool_core.format_table(["method", "automaton steps per token", "vs naive"]
                               + (["ms per mask", "vs naive"] if timings else []), rows),
        f"The three masks are {'the same' if costs['same'] else 'NOT the same'} at every step.",
        f"Compiling (once per tool) gave each of the {states} automaton states of the {len(lab.maskers)} tools its ready "
        f"mask and its list of context-dependent tokens, in {compile_steps} automaton steps{compiled}",
        f"Context-dependent tokens: {sum(dependent) / len(dependent):.1f} of {size} per step on average "
        f"({sum(dependent) / len(dependent) / size:.1%}); inside a string {in_string} ({in_string / size:.1%}): the "
        "tokens that end the string and go on, such as '\",' and '\"}'.",
        f"Lecture 003 (XGrammar, Llama 3.1, 128K tokens): 65.8 ms per token for a plain pushdown automaton, 0.018 ms "
        f"with precomputed masks ({65.8 / 0.018:,.0f}x); 1,134 tokens (<1%) depend on the stack.",
        "Milliseconds as measured on this machine, in Python." if timings else
        "Milliseconds vary by machine and run, so they are printed only with --timings.",
        f"What differs: {size} tokens instead of 128K, so even the naive walk is cheap; Python instead of C++; no "
        "bitset masks and no overlap with the model's own step. The share of stack-dependent tokens is of the same "
        "order, because after a value only whitespace , } ] may follow, whatever the stack (XGrammar's \"context "
        "expansion\")."])


@tool_core.preformatted
def demo_what_masking_misses(lab: ConstrainedLab, samples: int = 1000) -> str:
    """Syntax, not meaning (age 420 passes); greedy masking distorts the distribution (GAD's a/b/c/d example)."""
    person = SchemaAutomaton(PERSON_SCHEMA)
    wrong = '{"name": "Ann", "age": 420}'
    masked, truth = masked_answer_distribution(), valid_answer_distribution()
    drawn = {m: sample_answers(random.Random(lab.seed + 4 + m), samples, m) for m in (True, False)}
    rows = [[a, f"{float(masked[a]):.1%} ({masked[a]})", f"{drawn[True][a] / samples:.1%}",
             f"{float(truth[a]):.1%} ({truth[a]})", f"{drawn[False][a] / samples:.1%}"] for a in GAD_VALID]
    return "\n".join([
        f"Syntax, not meaning: {wrong} -> the automaton accepts it: {person.accepts(wrong)}; validate: "
        f"{tool_core.validate(PERSON_SCHEMA, json.loads(wrong)) or 'no errors'}. Valid, and wrong: Ann is 42.",
        "",
        "Greedy masking, one step at a time (Park et al., 2024): token 1 is a (0.9) or c (0.1); after a, b (0.01) or "
        "x (0.99, invalid); after c, d (1).",
        tool_core.format_table(["answer", "masked sampler, exact", f"sampled ({samples})",
                                "model given a valid answer, exact", f"sampled ({samples}, invalid ones dropped)"], rows),
        f"Step 1 masks nothing (a and c can both finish); step 2 lifts b from 0.01 to 1. The mask keeps every answer "
        f"valid but samples ab {float(masked['ab']):.0%} of the time, where the model itself, given a valid answer, "
        f"says cd {float(truth['cd']):.0%}."])

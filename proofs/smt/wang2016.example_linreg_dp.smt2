;; symdp certificate for wang2016.example_linreg_dp (statement hash da1aa7b4d53187d7)
;; claim: 50*gamma <= 64*gamma
;; hypotheses: none
;; box: none (all points satisfying the hypotheses)
;; reduction (oracle wang_linreg_dp): eps_DP = gamma sup_{z,z',h,h*} (Delta(h) - Delta(h*)) with Delta = l(h, z') - l(h, z) (the log-normaliser ratio is log E_{p(.|Z)} exp(-gamma Delta) in [-gamma max Delta, -gamma min Delta]); 0 <= l = (y - x h)^2 <= (1 + 2*2)^2 = 25 on Y x X x H = [-1,1] x [-2,2] x [-2,2], so eps_DP <= gamma (25 - (-25)) = 50 gamma (<= 32 gamma under the reading Y x X = [-2,2] x [-1,1])
;; expected result: unsat (the negated claim has no model)
(set-logic QF_NRA)
(declare-fun |gamma| () Real)
(assert (> |gamma| 0.0))
;; negated claim: <= must hold, so its negation must be unsat
(assert (not (<= (* 50.0 |gamma|) (* 64.0 |gamma|))))
(check-sat)

;; KL reduction, step 3: eps (x - 1)/(x + 1) = eps tanh(eps/2) with u = e^(eps/2), x = u^2
(set-logic QF_NRA)
(declare-fun u () Real)
(declare-fun eps () Real)
(assert (> u 0.0))
(assert (not (= (/ (* eps (- (* u u) 1.0)) (+ (* u u) 1.0)) (* eps (/ (- u (/ 1.0 u)) (+ u (/ 1.0 u)))))))
(check-sat)

package series

import "math"

var nan = math.NaN()

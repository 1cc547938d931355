who: boss
